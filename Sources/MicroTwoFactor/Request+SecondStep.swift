import MicroAuth
import MicroCore

// What another way in does with the second factor's step: a passkey that did not verify the
// person begins it, and a passkey may answer it instead of a code.
extension Request {
    /// Puts `stored`'s sign-in, begun by a passkey that did not verify the person, at the
    /// second factor's step (nobody is signed in yet; the remembered page stays), and gives the
    /// step page's path for the browser to go to. That step then takes a code alone, not
    /// another passkey, and a right code signs the person in: only after a passkey (or another
    /// first factor) was checked for this user.
    public func beginSecondStepAfterPasskey(_ stored: StoredUser) throws -> String {
        try pendSecondFactor(stored, first: .passkey)
    }

    /// Whether the sign-in waiting at the second step began with a passkey
    /// (``beginSecondStepAfterPasskey(_:)``).
    public var secondStepBeganWithPasskey: Bool { pendingSecondFactor?.first == .passkey }

    /// Drops the sign-in waiting at the second step, if any: it was answered (another way than
    /// by a code), or a sign-in that needs no step took its place.
    public func endSecondStep() {
        session.remove(PendingSecondFactor.key)
    }
}
