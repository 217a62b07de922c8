import MicroCore

/// The fixed start of authenticator data, which is not CBOR: the relying party id's SHA-256
/// (32 bytes), a byte of flags and a 4-byte signature counter. Read here to give each refusal its
/// reason; libfido2 parses the rest, and checks the hash and flags again with the signature.
struct PasskeyAuthenticatorHeader {
    /// The relying party id's hash.
    let relyingPartyIdHash: ArraySlice<UInt8>
    /// UP: a person touched or otherwise confirmed.
    let userPresent: Bool
    /// UV: the authenticator verified the person (PIN, fingerprint, face).
    let userVerified: Bool
    /// BE: the credential may be copied to the person's other devices (a synced passkey).
    let backupEligible: Bool
    /// BS: it is copied now; never without BE.
    let backedUp: Bool
    /// The signature counter; zero from authenticators that keep none.
    let signCount: UInt32

    /// The header of `data`; nil when it is shorter than one.
    init?(_ data: [UInt8]) {
        guard data.count >= 37 else { return nil }
        relyingPartyIdHash = data[0..<32]
        let flags = data[32]
        userPresent = flags & 0x01 != 0
        userVerified = flags & 0x04 != 0
        backupEligible = flags & 0x08 != 0
        backedUp = flags & 0x10 != 0
        signCount = data[33..<37].reduce(0) { $0 << 8 | UInt32($1) }
    }

    /// Checks the relying party and the flags: present always, verified when required, and
    /// backed up only when it may be.
    func check(for relyingParty: PasskeyRelyingParty, userVerification: Bool) throws(PasskeyError) {
        guard ConstantTime.equal(Array(relyingPartyIdHash), relyingParty.idHash) else { throw .wrongRelyingParty }
        guard backupEligible || !backedUp else { throw .malformed("authenticator data") }
        guard userPresent else { throw .userNotPresent }
        guard userVerified || !userVerification else { throw .userNotVerified }
    }
}
