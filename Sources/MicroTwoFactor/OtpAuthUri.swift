import MicroAuth
import MicroCore

/// The `otpauth://` URI authenticator apps read from a QR code (Google Authenticator's key
/// URI format): `otpauth://totp/ISSUER:USERNAME?secret=BASE32&issuer=ISSUER`, each part
/// percent-encoded.
enum OtpAuthUri {
    static func make(issuer: String, username: String, secret: String) -> String {
        let issuer = PercentEncoding.encode(issuer)
        return "otpauth://totp/\(issuer):\(PercentEncoding.encode(username))?secret=\(secret)&issuer=\(issuer)"
    }
}
