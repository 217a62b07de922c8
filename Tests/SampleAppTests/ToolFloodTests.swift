import Foundation
import Micro
import MicroTesting
import Testing
import SampleApp

/// The encryption tool's bcrypt never stands between a user and sign-in.
@Suite struct ToolFloodTests {
    @Test func aFloodOfBcryptToolRequestsNeitherFailsNorDelaysASignIn() async throws {
        // A tool pool of the test's own, as the sample app's, so that the flood leaves the other
        // tests' pool alone; sign-in uses the process's shared hasher, as the app does.
        let app = try sampleApp(toolHasher: PasswordHasher(threads: 1, capacity: 8))
        let flooder = TestClient(app)
        #expect(try await flooder.post("/signin", form: ["username": "user", "password": "secret123"]).location == "/")
        let cookie = try #require(flooder.cookies["micro.session"]?.value)
        let clock = ContinuousClock()
        let floodEnds = Task {
            try await withThrowingTaskGroup(of: (UInt, ContinuousClock.Instant).self) { group in
                for _ in 0..<12 {
                    group.addTask {
                        let client = TestClient(app)
                        client.setCookie("micro.session", cookie)
                        let answer = try await client.post(
                            "/tools/data-encryption", form: ["op": "bcrypt", "input": "flood", "cost": "13"])
                        return (answer.status.code, clock.now)
                    }
                }
                return try await group.reduce(into: [(UInt, ContinuousClock.Instant)]()) { $0.append($1) }
            }
        }
        // The flood's hashes are queued (a cost-13 hash takes about half a second).
        try await Task.sleep(for: .milliseconds(200))
        let user = TestClient(app)
        let signIn = try await user.post("/signin", form: ["username": "user", "password": "secret123"])
        let signedInAt = clock.now
        let flood = try await floodEnds.value
        #expect(signIn.location == "/")
        // Hashes were made (the tool's queue holds eight; the rest were told to come back), and
        // the sign-in did not wait behind the queued ones.
        let hashed = flood.filter { $0.0 == 200 }
        #expect(!hashed.isEmpty)
        #expect(flood.allSatisfy { $0.0 == 200 || $0.0 == 503 })
        #expect(signedInAt < hashed.map(\.1).max()!)
    }
}
