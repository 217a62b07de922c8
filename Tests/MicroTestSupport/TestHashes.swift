import MicroAuth

/// Cheap hashes (cost 4) for tests that sign in often.
package enum TestHashes {
    package static let secret123 = try! Password.hash("secret123", cost: 4)
    package static let annPassword = try! Password.hash("ann-password", cost: 4)
}
