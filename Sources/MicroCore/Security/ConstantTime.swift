/// Comparing secrets (a digest, a challenge, a nonce) in a time that depends on their length
/// alone, not on where they first differ, so that the time of a refusal tells an attacker
/// nothing about how much of a guess was right.
public enum ConstantTime {
    /// Whether `a` and `b` are the same bytes.
    public static func equal(_ a: some Collection<UInt8>, _ b: some Collection<UInt8>) -> Bool {
        guard a.count == b.count else { return false }
        var difference: UInt8 = 0
        for (x, y) in zip(a, b) { difference |= x ^ y }
        return difference == 0
    }

    /// Whether `a` and `b` are the same UTF-8 bytes.
    public static func equal(_ a: String, _ b: String) -> Bool {
        equal(a.utf8, b.utf8)
    }
}
