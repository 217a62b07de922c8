/// Why a session secret is too easy to guess for production, if it is: secrets that a person
/// typed or copied from an example, rather than drew at random (`openssl rand -hex 32`).
///
/// A secret is refused when it
/// - uses fewer than ``minimumDistinct`` different characters (one character repeated, `abab…`);
/// - is a shorter sequence repeated (`changemechangeme…`, `0123456789abcdef` twice);
/// - holds a placeholder word, letters and digits compared without case and without
///   separators (`changeme`, `secret`, `password`, `example`, `replaceme`…, so
///   `My-Secret-Key-2024…` too);
/// - is mostly a run of neighbouring characters (`abcdef…`, `123456…`, `zyxw…`).
///
/// A random secret of 32 bytes in hex (`openssl rand -hex 32`) passes every test for all
/// practical purposes (the placeholder words all need letters hex does not have); in base64 a
/// placeholder word turns up by chance in about one secret in ten million.
public enum SecretStrength {
    /// The fewest different characters a secret may use (a random hex secret uses all 16).
    public static let minimumDistinct = 8

    /// Placeholder words, lowercased, as they appear in examples and tutorials; six letters or
    /// more, so that a random base64 secret holds one only by a rare chance.
    static let placeholders = [
        "changeme", "changethis", "replaceme", "secret", "password", "passw0rd", "example",
        "placeholder", "default", "letmein", "qwerty", "insecure",
    ]

    /// What makes `secret` guessable, in words for the start-up error; nil when nothing does.
    public static func weakness(of secret: String) -> String? {
        let bytes = Array(secret.utf8)
        let distinct = Set(bytes).count
        if distinct == 1 { return "it is one character repeated" }
        if distinct < minimumDistinct { return "it uses only \(distinct) different characters" }
        if let period = period(of: bytes) { return "it is the same \(period) characters repeated" }
        let letters = String(decoding: bytes.filter { isLetterOrDigit($0) }.map { $0 | 0x20 }, as: UTF8.self)
        if let word = placeholders.first(where: { letters.contains($0) }) { return "it contains the placeholder word '\(word)'" }
        var steps = 0
        for (first, second) in zip(bytes, bytes.dropFirst()) where abs(Int(first) - Int(second)) == 1 { steps += 1 }
        if steps * 2 >= bytes.count - 1 { return "it is mostly a run of neighbouring characters (abc, 123)" }
        return nil
    }

    /// The length of the shortest sequence that `bytes` repeats (the last repetition may be
    /// cut short), when it repeats one at least twice; nil otherwise.
    private static func period(of bytes: [UInt8]) -> Int? {
        guard bytes.count >= 2 else { return nil }
        for length in 1...(bytes.count / 2) where (length..<bytes.count).allSatisfy({ bytes[$0] == bytes[$0 - length] }) {
            return length
        }
        return nil
    }

    /// ASCII letters (either case) and digits; `| 0x20` then lowercases a letter and leaves a
    /// digit as it is.
    private static func isLetterOrDigit(_ byte: UInt8) -> Bool {
        (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || (byte | 0x20 >= UInt8(ascii: "a") && byte | 0x20 <= UInt8(ascii: "z"))
    }
}
