import Foundation
import MicroAuth
import MicroCore
import MicroTesting
import Testing

@Suite struct PasswordTests {
    @Test func hashesAre2bWithTheCostAndVerify() throws {
        let hash = try Password.hash("correct horse", cost: 5)
        #expect(hash.hasPrefix("$2b$05$"))
        #expect(hash.utf8.count == 60)
        #expect(Password.verify("correct horse", against: hash))
        #expect(!Password.verify("correct horsE", against: hash))
        #expect(try Password.hash("correct horse", cost: 5) != hash)  // salted
        #expect(Password.defaultCost == 12)
    }

    @Test func verifiesTheRubyGemsAnd2yHashes() {
        // The seed's hash, written by Ruby's bcrypt gem.
        let ruby = "$2a$10$38FTKkrtpylOYomyC03Mb..Efdzu1BFa7c7bZav1FKuYJUAzosx1u"
        #expect(Password.verify("secret123", against: ruby))
        #expect(!Password.verify("secret 123", against: ruby))
        // PHP's $2y$ is the same algorithm under another prefix.
        let php = "$2y$" + ruby.dropFirst(4)
        #expect(Password.verify("secret123", against: php))
    }

    @Test func malformedHashesAreRecognised() {
        #expect(!Password.isValidHash("plain"))
        #expect(!Password.isValidHash("$1$abc$defghijklmnopqrstuvwxyz0123456789abcdefghijklmnopqrstuv"))
        #expect(!Password.isValidHash("$2a$10$38FTKkrtpylOYomyC03Mb..Efdzu1BFa7c7bZav1FKuYJUAzosx1"))  // short
        #expect(!Password.isValidHash("$2a$99$38FTKkrtpylOYomyC03Mb..Efdzu1BFa7c7bZav1FKuYJUAzosx1u"))
        #expect(!Password.verify("secret123", against: "not a hash"))
        #expect(throws: PasswordError.self) { try Password.hash("x", cost: 3) }
        #expect(throws: PasswordError.self) { try Password.hash("a\u{0}b", cost: 4) }
    }

    @Test func pythonsCryptVerifiesAHashMicroWrites() throws {
        let hash = try Password.hash("interop-test", cost: 4)
        let script = "import crypt, sys; sys.exit(0 if crypt.crypt('interop-test', sys.argv[1]) == sys.argv[1] else 1)"
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-W", "ignore", "-c", script, hash]
        process.standardError = FileHandle.nullDevice
        do {
            try process.run()
        } catch {
            withKnownIssue("python3 is not installed here") { throw error }
            return
        }
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "Python's crypt did not verify \(hash)")
    }

    @Test func theHashersThreadsYieldToTheEventLoops() async throws {
        #if os(Linux)
        @Sendable func niceOfThisThread() throws -> Int {
            // Field 19 of /proc/thread-self/stat; the name in field 2 has no spaces here.
            let fields = try String(contentsOfFile: "/proc/thread-self/stat", encoding: .utf8).split(separator: " ")
            return Int(fields[18]) ?? -99
        }
        @Sendable func policyOfThisThread() throws -> Int {
            // Field 41 of /proc/thread-self/stat: 3 is SCHED_BATCH.
            let fields = try String(contentsOfFile: "/proc/thread-self/stat", encoding: .utf8).split(separator: " ")
            return Int(fields[40]) ?? -1
        }
        let hasher = PasswordHasher(threads: 1)
        let (policy, nice) = try await hasher.run { (try policyOfThisThread(), try niceOfThisThread()) }
        #expect(policy == 3 && nice == 19)
        // Only the hasher's thread: the process (its main thread) keeps its priority.
        let main = try String(contentsOfFile: "/proc/self/stat", encoding: .utf8).split(separator: " ")
        #expect(Int(main[18]) == 0)
        #endif
    }

    @Test func theHasherRunsOffTheCallersThread() async throws {
        let hasher = PasswordHasher(threads: 1)
        let hash = try await hasher.hash("pw", cost: 4)
        #expect(try await hasher.verify("pw", against: hash))
        #expect(try await !hasher.verify("pw2", against: hash))
    }
}
