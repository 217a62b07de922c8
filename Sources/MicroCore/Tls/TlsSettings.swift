/// HTTPS served by the app itself, for a tool reached without a proxy in front
/// (`MICRO_TLS_CERT` and `MICRO_TLS_KEY` set it). TLS 1.2 and 1.3 only. The files are read
/// when the app starts, and again on `SIGHUP` (``App/reload()``), so a renewed certificate
/// needs no restart; a renewal that cannot be used is logged and the one in use is kept.
///
/// ```swift
/// app.settings.tls = TlsSettings(certificateFile: "/etc/labtool-tls/fullchain.pem",
///                                keyFile: "/etc/labtool-tls/privkey.pem",
///                                redirectPort: 80)
/// ```
///
/// With TLS on, the session cookie is `Secure` and ``Request/scheme`` is `https`.
public struct TlsSettings: Sendable, Equatable {
    /// The certificate in PEM, followed by its intermediates (a `fullchain.pem`).
    public var certificateFile: String
    /// Its private key in PEM. Start-up refuses one that every local user can read (its group
    /// may: a service's group is how it is usually given the key).
    public var keyFile: String
    /// A port on which plain HTTP is answered `308 Permanent Redirect` to the same path over
    /// HTTPS (`MICRO_HTTP_REDIRECT_PORT`); nil listens on no second port, 0 on a free one
    /// (``RunningServer/httpRedirectPort`` says which).
    public var redirectPort: Int?
    /// The `max-age` of the `Strict-Transport-Security` header every answer carries in
    /// production (`MICRO_HSTS_MAX_AGE`), so that a browser that has been here once never
    /// tries plain HTTP again, where a network in between could keep it from the redirect.
    /// 0 sends none; development and test send none whatever it says (a browser would remember
    /// HTTPS for `localhost`).
    public var strictTransportSecurityMaxAge: Int

    /// A year: what browsers' preload lists ask for.
    public static let defaultStrictTransportSecurityMaxAge = 31_536_000

    /// HTTPS from `certificateFile` and `keyFile`, with plain HTTP redirected from
    /// `redirectPort` when one is given.
    public init(
        certificateFile: String, keyFile: String, redirectPort: Int? = nil,
        strictTransportSecurityMaxAge: Int = TlsSettings.defaultStrictTransportSecurityMaxAge
    ) {
        self.certificateFile = certificateFile
        self.keyFile = keyFile
        self.redirectPort = redirectPort
        self.strictTransportSecurityMaxAge = strictTransportSecurityMaxAge
    }
}
