// The cookie session store's decode path, under a fixed secret.
//
// The input is used three ways: as a cookie value (base64url, AES-GCM, then the codec), as
// the decrypted bytes the codec reads (sealed with the store's key, so the fuzzer gets past
// the authentication tag), and as base64url text. Checks: no crash; a forged value never
// loads; the sealed bytes load exactly when the codec decodes them, to the same session; any
// session that decodes encodes and decodes (and saves and loads) back equal; base64url is
// canonical both ways.
@_spi(Fuzzing) import Micro
import FuzzSupport

let store = CookieSessionStore(secret: "fuzz-secret-0123456789abcdef0123456789abcdef")

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSessionCookie(_ data: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let input = bytes(data, count)

    // A cookie value from the client: it was not sealed with our key, so it must not load.
    let cookieValue = text(input)
    if let forged = store.load(cookieValue: cookieValue) {
        fatalError("a cookie value not made by the store loaded: \(cookieValue) -> \(forged)")
    }

    // Base64url: canonical in both directions.
    if let decoded = FuzzingEntryPoints.base64UrlDecode(cookieValue) {
        require(FuzzingEntryPoints.base64UrlEncode(decoded) == cookieValue, "a non-canonical base64url text decoded")
    }
    require(FuzzingEntryPoints.base64UrlDecode(FuzzingEntryPoints.base64UrlEncode(input)) == input, "base64url round trip failed")

    // The bytes inside the cookie, sealed under the store's key.
    let session = FuzzingEntryPoints.decodeSession(input)
    guard let sealed = try? store.sealForFuzzing(input) else {
        fatalError("sealing failed")
    }
    let loaded = store.load(cookieValue: sealed)
    if sealed.utf8.count <= 8192 {
        require(loaded == session, "the store loaded \(String(describing: loaded)) where the codec gives \(String(describing: session))")
    } else {
        require(loaded == nil, "an oversized cookie loaded")
    }
    guard let session else { return 0 }

    let encoded = FuzzingEntryPoints.encodeSession(session)
    require(FuzzingEntryPoints.decodeSession(encoded) == session, "codec round trip failed for \(session)")
    require(encoded.count <= input.count, "re-encoding a decoded session grew it")
    guard let saved = try? store.save(session) else {
        fatalError("saving a decoded session failed")
    }
    if saved.utf8.count <= 8192 {
        require(store.load(cookieValue: saved) == session, "save/load round trip failed for \(session)")
    }
    return 0
}

/// The entry point a debug build of the package's tests asks for (see `fuzzerMain`).
@_cdecl("FuzzSessionCookie_main")
public func fuzzSessionCookieMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    fuzzerMain(argc, argv)
}
