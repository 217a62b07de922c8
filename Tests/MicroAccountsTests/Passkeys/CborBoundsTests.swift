@testable import MicroAccounts
@testable import MicroPasskeys
import Testing

/// The look Micro takes at authenticator data's CBOR before libfido2 reads it: an
/// authenticator's items pass, and a header claiming more than the data holds does not reach
/// libcbor, which would allocate for the claim.
@Suite struct CborBoundsTests {
    /// `{"credProtect": 1}`, extensions as an authenticator writes them.
    static let extensions: [UInt8] = [0xA1, 0x6B] + Array("credProtect".utf8) + [0x01]

    @Test(arguments: PasskeyAlgorithm.allCases)
    func aKeyOfEachAlgorithmAndItsExtensionsPass(_ algorithm: PasskeyAlgorithm) throws {
        let key = try SoftwareAuthenticator(algorithm).coseKey()
        #expect(CborBounds.admits(key[...]))
        #expect(CborBounds.admits((key + Self.extensions)[...]))
        #expect(CborBounds.admits([][...]), "no items at all")
    }

    @Test func claimsBeyondTheDataAreRefused() {
        let refused: [(String, [UInt8])] = [
            ("a map of 2^60 pairs", [0xBB, 0x10, 0, 0, 0, 0, 0, 0, 0, 0x01, 0x02]),
            ("a map of 2^63 pairs, whose key and value count overflows", [0xBB, 0x80, 0, 0, 0, 0, 0, 0, 0, 0x01, 0x02]),
            ("an array of more items than bytes", [0x85, 0x01, 0x02, 0x03]),
            ("a map of more pairs than bytes", [0xA2, 0x01, 0x02, 0x03]),
            ("a byte string longer than the data", [0x5A, 0xFF, 0xFF, 0xFF, 0xFF, 0x00]),
            ("a text string longer than the data", [0x63, 0x61, 0x62]),
            ("an indefinite-length map", [0xBF, 0x01, 0x02, 0xFF]),
            ("an indefinite-length byte string", [0x5F, 0x41, 0x00, 0xFF]),
            ("a reserved length", [0x1C]),
            ("a break with nothing to end", [0xFF]),
            ("a truncated argument", [0x19, 0x01]),
            ("a tag with nothing to tag", [0xC6]),
            ("nesting nine deep", [UInt8](repeating: 0x81, count: 9) + [0x00]),
            ("a good item, then garbage", [0xA1, 0x01, 0x02, 0x83, 0x01]),
        ]
        for (what, bytes) in refused {
            #expect(!CborBounds.admits(bytes[...]), "\(what)")
        }
        #expect(CborBounds.admits(([UInt8](repeating: 0x81, count: 7) + [0x00])[...]), "nesting eight deep")
    }
}
