import Foundation
@testable import MicroAccounts
import MicroAuth
import MicroCore
import MicroTesting
@testable import MicroTwoFactor
import Testing

/// TOTP against RFC 6238's test vectors, base32 against RFC 4648's, and the QR code's matrix.
@Suite struct TotpTests {
    /// RFC 6238, appendix B: the SHA-1 secret and its 8-digit codes.
    static let rfcSecret = Array("12345678901234567890".utf8)
    static let vectors: [(time: Int64, code: String)] = [
        (59, "94287082"), (1_111_111_109, "07081804"), (1_111_111_111, "14050471"), (1_234_567_890, "89005924"),
        (2_000_000_000, "69279037"), (20_000_000_000, "65353130"),
    ]

    @Test func rfc6238VectorsWithEightDigits() {
        let totp = Totp(secret: Self.rfcSecret, digits: 8)
        for vector in Self.vectors { #expect(totp.code(at: vector.time) == vector.code, "\(vector.time)") }
    }

    @Test func rfc6238VectorsTruncatedToSixDigits() {
        let totp = Totp(secret: Self.rfcSecret)
        for vector in Self.vectors { #expect(totp.code(at: vector.time) == String(vector.code.suffix(6)), "\(vector.time)") }
    }

    @Test func theStepBeforeAndAfterAreAcceptedAndUsedStepsAreNot() {
        let totp = Totp(secret: Self.rfcSecret)
        let now: Int64 = 1_111_111_111
        let step = totp.step(at: now)
        #expect(totp.matchingStep(of: totp.code(step: step), at: now) == step)
        #expect(totp.matchingStep(of: totp.code(step: step - 1), at: now) == step - 1)
        #expect(totp.matchingStep(of: totp.code(step: step + 1), at: now) == step + 1)
        #expect(totp.matchingStep(of: totp.code(step: step - 2), at: now) == nil)
        #expect(totp.matchingStep(of: totp.code(step: step + 2), at: now) == nil)
        // A step used already, or one before it, is refused.
        #expect(totp.matchingStep(of: totp.code(step: step), at: now, after: step) == nil)
        #expect(totp.matchingStep(of: totp.code(step: step - 1), at: now, after: step - 1) == nil)
        #expect(totp.matchingStep(of: totp.code(step: step + 1), at: now, after: step) == step + 1)
        // Spaces inside are fine; other characters and lengths are not.
        let code = totp.code(step: step)
        #expect(totp.matchingStep(of: String(code.prefix(3)) + " " + String(code.suffix(3)), at: now) == step)
        for bad in ["", "12345", "1234567", "12345a", "１２３４５６", String(repeating: "1", count: 10_000), code + "\u{0}"] {
            #expect(totp.matchingStep(of: bad, at: now) == nil, "\(bad.prefix(20))")
        }
    }

    @Test func base32FollowsRfc4648() {
        let vectors = [("", ""), ("f", "MY======"), ("fo", "MZXQ===="), ("foo", "MZXW6==="), ("foob", "MZXW6YQ="), ("fooba", "MZXW6YTB"), ("foobar", "MZXW6YTBOI======")]
        for (plain, encoded) in vectors {
            #expect(Base32.encode(Array(plain.utf8)) == encoded)
            #expect(Base32.decode(encoded) == Array(plain.utf8))
            #expect(Base32.decode(encoded.replacingOccurrences(of: "=", with: "").lowercased()) == Array(plain.utf8))
        }
        #expect(Base32.encode(Array("foobar".utf8), padded: false) == "MZXW6YTBOI")
        let secret = Totp.randomSecret()
        #expect(secret.count == 20)
        #expect(Base32.decode(Base32.encode(secret, padded: false)) == secret)
        // Characters outside the alphabet, a misplaced pad, an impossible length, stray bits.
        for bad in ["MZXW1", "MZ=XW6", "M", "MZX", "MZXW6YTB0", "MZ\u{0}", "MZXW6é", "MZ======", "MZXR===="] {
            #expect(Base32.decode(bad) == nil, "\(bad)")
        }
    }

    @Test func qrCodeOfAKnownTextHasItsVersionAndModules() throws {
        // "hello" in byte mode at level M fits version 1: 21 × 21 modules.
        let small = try #require(QrCodeSvg.matrix("hello"))
        #expect(small.version == 1)
        #expect(small.width == 21)
        // The finder pattern's corners are dark, the separator beside it light.
        #expect(small.dark[0] && small.dark[6] && small.dark[6 * 21] && small.dark[20] && small.dark[20 * 21])
        #expect(!small.dark[7] && !small.dark[7 * 21])
        let uri = OtpAuthUri.make(issuer: "Micro Tools", username: "ann", secret: Base32.encode(Totp.randomSecret(), padded: false))
        let matrix = try #require(QrCodeSvg.matrix(uri))
        #expect(matrix.width == 17 + 4 * matrix.version)
        // Its 93 bytes need version 6 at level M (which holds 106; version 5 holds 84).
        #expect(uri.utf8.count == 93)
        #expect(matrix.version == 6)
        let svg = QrCodeSvg.svg(matrix)
        #expect(svg.hasPrefix("<svg") && svg.hasSuffix("</svg>"))
        #expect(!svg.contains("style"))
        let squares = svg.components(separatedBy: "h1v1h-1z").count - 1
        #expect(squares == matrix.dark.filter { $0 }.count)
        #expect(svg.contains("viewBox=\"0 0 \(matrix.width + 8) \(matrix.width + 8)\""))
        #expect(QrCodeSvg.matrix(String(repeating: "x", count: 5000)) == nil)
    }

    @Test func theOtpAuthUriIsPercentEncoded() {
        #expect(OtpAuthUri.make(issuer: "Micro Tools", username: "ann", secret: "ABC") == "otpauth://totp/Micro%20Tools:ann?secret=ABC&issuer=Micro%20Tools")
        #expect(OtpAuthUri.make(issuer: "A&B", username: "zoë?", secret: "ABC") == "otpauth://totp/A%26B:zo%C3%AB%3F?secret=ABC&issuer=A%26B")
    }

    @Test func theDataKeySealsBoundToItsContextAndIsCheckedLikeTheSessionSecret() throws {
        let key = DataKey(material: "0123456789abcdef0123456789abcdef-a-random-one")
        let sealed = try key.seal([1, 2, 3], context: "micro totp secret ann")
        #expect(key.open(sealed, context: "micro totp secret ann") == [1, 2, 3])
        #expect(key.open(sealed, context: "micro totp secret bob") == nil)
        #expect(DataKey(material: "another key of enough length, 0123456789").open(sealed, context: "micro totp secret ann") == nil)
        #expect(key.open("not base64 at all", context: "micro totp secret ann") == nil)
        #expect(DataKey.problem(with: "short", environment: .development)?.contains("MICRO_DATA_KEY") == true)
        #expect(DataKey.problem(with: String(repeating: "a", count: 40), environment: .production)?.contains("MICRO_DATA_KEY") == true)
        #expect(DataKey.problem(with: "5f0c9e2a7b1d4863a9e0f7c2b6d1358e4a7c0f9b2e6d1a3c8b5f7e0d2c4a9b61", environment: .production) == nil)
        // The variable, from the settings' (`Settings.fromProcess`), unless the app sets one.
        let variables = try Settings.fromProcess(["MICRO_DATA_KEY": "abc"])
        #expect(DataKeySettings().material(in: variables) == "abc")
        #expect(DataKeySettings().material(in: Settings()) == nil)
        var own = DataKeySettings()
        own.material = "def"
        #expect(own.material(in: variables) == "def")
    }

    @Test func developmentKeepsItsDataKeyInAPrivateFile() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("micro-data-key-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        // Beside the session secret, wherever that is.
        let path = folder.appendingPathComponent(".micro-data-key").path
        var settings = Settings()
        settings.environment = .development
        settings.sessions.secretFile = folder.appendingPathComponent(".micro-session-secret").path
        var key = DataKeySettings()
        let first = try #require(try DataKey.resolve(settings, key))
        let sealed = try first.seal([9], context: "x")
        let again = try #require(try DataKey.resolve(settings, key))
        #expect(again.open(sealed, context: "x") == [9])
        let mode = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int
        #expect(mode == 0o600)
        // Another file: another key, which does not open what the first sealed.
        key.file = folder.appendingPathComponent("other-key").path
        #expect(try #require(try DataKey.resolve(settings, key)).open(sealed, context: "x") == nil)
        settings.environment = .production
        #expect(try DataKey.resolve(settings, key) == nil)
    }
}
