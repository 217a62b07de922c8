import CFido2

/// What Micro asks of libfido2: the credential and public key in a registration's
/// authenticator data, and the check of a sign-in's signature. libfido2 parses the CBOR and
/// COSE and does the cryptography (OpenSSL's); Micro reads only the authenticator data's fixed
/// header, which is not CBOR.
enum Fido2 {
    /// `fido_init` once, before any other call (a Swift static is made once, thread-safely).
    private static let initialized: Void = fido_init(0)

    /// The credential a registration's authenticator data carries.
    struct AttestedCredential {
        let id: [UInt8]
        let publicKey: PasskeyPublicKey
        let signCount: UInt32
    }

    /// The attested credential in `authenticatorData`, with a COSE key of `algorithm`; nil when
    /// the data holds none, or a key of another algorithm, or is malformed.
    static func attestedCredential(in authenticatorData: [UInt8], algorithm: PasskeyAlgorithm) -> AttestedCredential? {
        _ = initialized
        // After the credential: its COSE key (a map), then the extensions' map when the flag ED
        // says there are extensions, and nothing else (WebAuthn §6.1). libfido2 reads the key
        // and skips what follows it, so Micro refuses what no authenticator writes.
        let extensions = authenticatorData.count > 32 && authenticatorData[32] & 0x80 != 0
        guard let keyStart = coseKeyStart(in: authenticatorData),
            CborBounds.topLevelTypes(authenticatorData[keyStart...]) == (extensions ? [5, 5] : [5])
        else { return nil }
        var credential = fido_cred_new()
        defer { fido_cred_free(&credential) }
        guard credential != nil, fido_cred_set_type(credential, algorithm.rawValue) == FIDO_OK,
            authenticatorData.withUnsafeBufferPointer({ fido_cred_set_authdata_raw(credential, $0.baseAddress, $0.count) }) == FIDO_OK,
            let idBytes = fido_cred_id_ptr(credential), let keyBytes = fido_cred_pubkey_ptr(credential)
        else { return nil }
        let id = Array(UnsafeBufferPointer(start: idBytes, count: fido_cred_id_len(credential)))
        let key = Array(UnsafeRawBufferPointer(start: keyBytes, count: fido_cred_pubkey_len(credential)))
        return AttestedCredential(id: id, publicKey: PasskeyPublicKey(algorithm: algorithm, bytes: key), signCount: fido_cred_sigcount(credential))
    }

    /// Where the COSE key starts in registration data: after the header, the AAGUID and the
    /// credential id; nil when the data carries no attested credential (flag AT) or is too short.
    private static func coseKeyStart(in authenticatorData: [UInt8]) -> Int? {
        let idLengthAt = 37 + 16
        guard authenticatorData.count >= idLengthAt + 2, authenticatorData[32] & 0x40 != 0 else { return nil }
        let start = idLengthAt + 2 + (Int(authenticatorData[idLengthAt]) << 8 | Int(authenticatorData[idLengthAt + 1]))
        return start <= authenticatorData.count ? start : nil
    }

    /// What checking an assertion came to.
    enum AssertionCheck: Equatable {
        /// The signature is the key's over this authenticator data and client data.
        case verified
        /// The authenticator data is not an assertion's.
        case malformedAuthenticatorData
        /// The stored key cannot be read back (a row changed by hand).
        case unreadableKey
        /// The signature does not verify, or the data fails libfido2's own checks.
        case badSignature
    }

    /// Checks `signature` over `authenticatorData` and the SHA-256 of `clientData` with `key`,
    /// and, as libfido2 also checks them, the relying party id's hash and the user-present
    /// (and, when `userVerification`, user-verified) flags.
    static func verifyAssertion(
        authenticatorData: [UInt8], clientData: [UInt8], signature: [UInt8], key: PasskeyPublicKey, relyingPartyId: String,
        userVerification: Bool
    ) -> AssertionCheck {
        _ = initialized
        // Empty fields never get here (``PasskeyField`` refuses them), and libfido2 refuses them too.
        // What follows the header is CBOR (the extensions), read by libfido2 only once bounded.
        guard CborBounds.admits(authenticatorData.dropFirst(37)) else { return .malformedAuthenticatorData }
        var assertion = fido_assert_new()
        defer { fido_assert_free(&assertion) }
        guard assertion != nil, fido_assert_set_count(assertion, 1) == FIDO_OK else { return .badSignature }
        let parsed = authenticatorData.withUnsafeBufferPointer { fido_assert_set_authdata_raw(assertion, 0, $0.baseAddress, $0.count) }
        guard parsed == FIDO_OK else { return .malformedAuthenticatorData }
        guard fido_assert_set_rp(assertion, relyingPartyId) == FIDO_OK,
            clientData.withUnsafeBufferPointer({ fido_assert_set_clientdata(assertion, $0.baseAddress, $0.count) }) == FIDO_OK,
            signature.withUnsafeBufferPointer({ fido_assert_set_sig(assertion, 0, $0.baseAddress, $0.count) }) == FIDO_OK,
            fido_assert_set_up(assertion, FIDO_OPT_TRUE) == FIDO_OK,
            fido_assert_set_uv(assertion, userVerification ? FIDO_OPT_TRUE : FIDO_OPT_OMIT) == FIDO_OK
        else { return .badSignature }
        return withPublicKey(key) { algorithm, publicKey in
            fido_assert_verify(assertion, 0, algorithm, publicKey) == FIDO_OK ? .verified : .badSignature
        } ?? .unreadableKey
    }

    /// Whether `key` is one to store: of its algorithm's length, a P-256 point on the curve,
    /// or an RSA key with the exponent 65537 and an odd modulus. libfido2 reads a COSE key's
    /// values without checking them (a P-256 key without its y has zeros there, an RSA key
    /// without its exponent too, and an exponent of 1 would let anyone sign), so a registration
    /// asks this before its key is stored. An Ed25519 key is taken as OpenSSL takes it.
    static func isUsable(_ key: PasskeyPublicKey) -> Bool {
        _ = initialized
        if key.algorithm == .rs256, key.bytes.count == key.algorithm.keyLength {
            // libfido2's form: the 256-byte modulus, then the 3-byte exponent.
            guard key.bytes[255] & 1 == 1, key.bytes[0] & 0x80 != 0, Array(key.bytes[256...]) == [1, 0, 1]
            else { return false }
        }
        return withPublicKey(key) { _, _ in true } ?? false
    }

    /// Calls `body` with libfido2's key of `key`; nil when libfido2 does not take its bytes.
    private static func withPublicKey<Result>(_ key: PasskeyPublicKey, _ body: (Int32, UnsafeRawPointer) -> Result) -> Result? {
        guard key.bytes.count == key.algorithm.keyLength else { return nil }
        return key.bytes.withUnsafeBufferPointer { bytes -> Result? in
            switch key.algorithm {
            case .es256:
                var publicKey = es256_pk_new()
                defer { es256_pk_free(&publicKey) }
                guard let made = publicKey, es256_pk_from_ptr(made, bytes.baseAddress, bytes.count) == FIDO_OK else { return nil }
                return body(COSE_ES256, UnsafeRawPointer(made))
            case .edDsa:
                var publicKey = eddsa_pk_new()
                defer { eddsa_pk_free(&publicKey) }
                guard let made = publicKey, eddsa_pk_from_ptr(made, bytes.baseAddress, bytes.count) == FIDO_OK else { return nil }
                return body(COSE_EDDSA, UnsafeRawPointer(made))
            case .rs256:
                var publicKey = rs256_pk_new()
                defer { rs256_pk_free(&publicKey) }
                guard let made = publicKey, rs256_pk_from_ptr(made, bytes.baseAddress, bytes.count) == FIDO_OK else { return nil }
                return body(COSE_RS256, UnsafeRawPointer(made))
            }
        }
    }
}
