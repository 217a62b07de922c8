import Micro
import Testing
@testable import SampleApp

@Suite struct DataEncryptionTests {
    func apply(
        _ operation: DataEncryption.Operation, _ input: String, key: String? = nil, hash: String? = nil, cost: Int? = nil
    ) throws -> String {
        try DataEncryption.apply(operation, input: input, key: key, hash: hash, cost: cost)
    }

    func refusal(
        _ operation: DataEncryption.Operation, _ input: String, key: String? = nil, hash: String? = nil, cost: Int? = nil
    ) -> ToolError? {
        do {
            _ = try DataEncryption.apply(operation, input: input, key: key, hash: hash, cost: cost)
            return nil
        } catch {
            return error
        }
    }

    func bytes(_ hex: String) throws -> [UInt8] { try DataEncoding.hexDecode(hex) }

    /// The seed user's hash of "secret123", written by Ruby's bcrypt gem.
    let rubyHash = "$2a$10$38FTKkrtpylOYomyC03Mb..Efdzu1BFa7c7bZav1FKuYJUAzosx1u"

    @Test func operationsHaveNamesAndLabels() {
        #expect(DataEncryption.Operation.allCases.map(\.rawValue) == [
            "md5", "sha1", "sha256", "sha512", "hmac-sha256", "bcrypt", "bcrypt-verify",
        ])
        #expect(DataEncryption.Operation.hmacSha256.label == "HMAC-SHA256")
        #expect(Set(DataEncryption.Operation.allCases.map(\.label)).count == 7)
    }

    @Test func md5Rfc1321Vectors() throws {
        #expect(try apply(.md5, "") == "d41d8cd98f00b204e9800998ecf8427e")
        #expect(try apply(.md5, "a") == "0cc175b9c0f1b6a831c399e269772661")
        #expect(try apply(.md5, "abc") == "900150983cd24fb0d6963f7d28e17f72")
        #expect(try apply(.md5, "message digest") == "f96b697d7cb7938d525a2f31aaf161d0")
    }

    @Test func sha1Vectors() throws {
        #expect(try apply(.sha1, "abc") == "a9993e364706816aba3e25717850c26c9cd0d89d")
        #expect(try apply(.sha1, "") == "da39a3ee5e6b4b0d3255bfef95601890afd80709")
    }

    @Test func sha256Vectors() throws {
        #expect(try apply(.sha256, "abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(try apply(.sha256, "") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(
            try apply(.sha256, "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq")
                == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
    }

    @Test func sha512Vectors() throws {
        #expect(
            try apply(.sha512, "abc")
                == "ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f")
    }

    @Test func digestsAreOfTheUtf8Bytes() throws {
        #expect(try apply(.md5, "é") != apply(.md5, "e\u{301}"))  // no normalisation
    }

    @Test func hmacSha256Rfc4231TestCases() throws {
        // Case 1
        #expect(
            DataEncryption.hmacSha256(Array("Hi There".utf8), key: Array(repeating: 0x0B, count: 20))
                == "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7")
        // Case 2, through the form's text fields.
        #expect(
            try apply(.hmacSha256, "what do ya want for nothing?", key: "Jefe")
                == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
        // Case 3
        #expect(
            DataEncryption.hmacSha256(Array(repeating: 0xDD, count: 50), key: Array(repeating: 0xAA, count: 20))
                == "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe")
        // Case 4
        #expect(
            try DataEncryption.hmacSha256(
                Array(repeating: 0xCD, count: 50), key: bytes("0102030405060708090a0b0c0d0e0f10111213141516171819"))
                == "82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b")
        // Case 6: a key longer than the block.
        #expect(
            DataEncryption.hmacSha256(
                Array("Test Using Larger Than Block-Size Key - Hash Key First".utf8), key: Array(repeating: 0xAA, count: 131))
                == "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54")
        // Case 7: key and data longer than the block.
        let data = "This is a test using a larger than block-size key and a larger than block-size data. "
            + "The key needs to be hashed before being used by the HMAC algorithm."
        #expect(
            DataEncryption.hmacSha256(Array(data.utf8), key: Array(repeating: 0xAA, count: 131))
                == "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2")
    }

    @Test func hmacNeedsAKey() {
        let expected = ToolError(field: "key", message: "HMAC-SHA256 needs a key: enter the secret to sign with.")
        #expect(refusal(.hmacSha256, "data") == expected)
        #expect(refusal(.hmacSha256, "data", key: "") == expected)
        #expect(refusal(.hmacSha256, "data", key: String(repeating: "k", count: 64 * 1024 + 1))?.field == "key")
    }

    @Test func bcryptRoundTrip() throws {
        let hash = try apply(.bcrypt, "correct horse", cost: 4)
        #expect(hash.hasPrefix("$2b$04$"))
        #expect(hash.count == 60)
        #expect(try apply(.bcryptVerify, "correct horse", hash: hash) == "Match")
        #expect(try apply(.bcryptVerify, "correct horsE", hash: hash) == "No match")
        #expect(try apply(.bcrypt, "correct horse", cost: 4) != hash)  // salted
        let longest = String(repeating: "x", count: 72)
        #expect(try apply(.bcryptVerify, longest, hash: apply(.bcrypt, longest, cost: 4)) == "Match")
    }

    @Test func bcryptCostDefaultsToTheOneSignInAndHashPasswordUse() throws {
        #expect(try apply(.bcrypt, "secret123").hasPrefix("$2b$12$"))
        #expect(DataEncryption.defaultCost == Password.defaultCost)
        #expect(try Authentication(users: YamlUserStore(file: "credentials.yml")).passwordCost == Password.defaultCost)
    }

    @Test func bcryptVerifiesTheRubyGemsHash() throws {
        #expect(try apply(.bcryptVerify, "secret123", hash: rubyHash) == "Match")
        #expect(try apply(.bcryptVerify, "secret 123", hash: rubyHash) == "No match")
        #expect(try apply(.bcryptVerify, "secret123", hash: " \(rubyHash)\n") == "Match")
    }

    @Test func bcryptErrors() {
        for cost in [3, 15, 31, -1] {
            #expect(refusal(.bcrypt, "x", cost: cost) == ToolError(field: "cost", message: "The bcrypt cost must be from 4 to 14, not \(cost)."))
        }
        let tooLong = String(repeating: "x", count: 73)
        for operation in [DataEncryption.Operation.bcrypt, .bcryptVerify] {
            let refused = refusal(operation, tooLong, hash: rubyHash, cost: 4)
            #expect(refused?.field == "input")
            #expect(refused?.message.contains("only the first 72 bytes") == true)
        }
        #expect(refusal(.bcrypt, String(repeating: "é", count: 37), cost: 4)?.message.contains("74 bytes") == true)
        #expect(refusal(.bcrypt, "a\u{0}b", cost: 4)?.field == "input")
        #expect(refusal(.bcryptVerify, "secret123")?.field == "hash")
        #expect(refusal(.bcryptVerify, "secret123", hash: "  ")?.field == "hash")
        #expect(refusal(.bcryptVerify, "secret123", hash: "plain")?.message.hasPrefix("Not a bcrypt hash") == true)
        #expect(refusal(.bcryptVerify, "secret123", hash: String(rubyHash.dropLast()))?.field == "hash")
        #expect(refusal(.bcryptVerify, "secret123", hash: "$2a$99$" + rubyHash.dropFirst(7))?.field == "hash")
    }

    @Test func inputOver64KibIsRefused() throws {
        let limit = String(repeating: "a", count: 64 * 1024)
        #expect(try apply(.sha256, limit).count == 64)
        let expected = ToolError(field: "input", message: "The input is 65537 bytes; the limit is 65536 bytes (64 KiB).")
        for operation in DataEncryption.Operation.allCases {
            #expect(refusal(operation, limit + "a", key: "k", hash: rubyHash, cost: 4) == expected)
        }
    }
}
