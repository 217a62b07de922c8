import Foundation
import Micro
import MicroOpenIdConnect
import MicroTestSupport
import MicroTesting
import Testing

/// Links unused for the retention expire, in the memory store and in SQLite: the `any` mapping
/// makes one per person the provider vouches for, so the tables must stay bounded.
@Suite struct IdentityLinkExpiryTests {
    private static let day: TimeInterval = 86_400

    /// Moves the app's clock and the provider's together, as time passing would.
    private func travel(_ clock: MovableClock, _ provider: HostileProvider, days: Double) {
        clock.advance(days * Self.day)
        provider.state.withLock { $0.clockOffset += days * Self.day }
    }

    private func signIn(_ app: App, _ provider: HostileProvider, subject: String) async throws -> TestResponse {
        provider.state.withLock { $0.claims["sub"] = .string(subject); $0.claims["preferred_username"] = .string("zed") }
        return try await signInThroughProvider(TestClient(app), provider)
    }

    @Test(arguments: DataStoreKind.allCases)
    func aLinkUnusedPastTheRetentionIsGoneAndTheNextSignInLinksAfresh(_ kind: DataStoreKind) async throws {
        let provider = try await HostileProvider.start()
        defer { Task { await provider.stop() } }
        try await kind.withIdentityLinks { (links: any IdentityLinkListing) async throws in
            let clock = MovableClock()
            let app = ssoApp(provider, clock: clock.now, configure: { $0.users = .any; $0.links = links })
            #expect(try await signIn(app, provider, subject: "sub-zed").status == .seeOther)
            // While the link stands, another subject is refused the name.
            #expect(try await signIn(app, provider, subject: "sub-other").status == .forbidden)
            travel(clock, provider, days: 366)
            // A year unused: the link is as none, and another subject's first sign-in takes the name.
            #expect(try await links.follow(ExternalIdentity(issuer: provider.issuer, subject: "sub-zed"), now: Int64(clock.now().timeIntervalSince1970)) == nil)
            #expect(try await signIn(app, provider, subject: "sub-other").status == .seeOther)
            #expect(try await signIn(app, provider, subject: "sub-zed").status == .forbidden)
        }
    }

    @Test(arguments: DataStoreKind.allCases)
    func aLinkUsedWithinTheRetentionStays(_ kind: DataStoreKind) async throws {
        let provider = try await HostileProvider.start()
        defer { Task { await provider.stop() } }
        try await kind.withIdentityLinks { (links: any IdentityLinkListing) async throws in
            let clock = MovableClock()
            let app = ssoApp(provider, clock: clock.now, configure: { $0.users = .any; $0.links = links })
            #expect(try await signIn(app, provider, subject: "sub-zed").status == .seeOther)
            travel(clock, provider, days: 300)
            #expect(try await signIn(app, provider, subject: "sub-zed").status == .seeOther)
            // Made 600 days ago, used 300 days ago: it stands.
            travel(clock, provider, days: 300)
            #expect(try await signIn(app, provider, subject: "sub-other").status == .forbidden)
            #expect(try await signIn(app, provider, subject: "sub-zed").status == .seeOther)
        }
    }

    @Test func theSqliteStoreWritesALinksLastUseAtMostOnceADay() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("micro-links-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let database = try await Database.sqlite(path: folder.appendingPathComponent("app.db").path)
        defer { Task { await database.shutdown() } }
        let links = try await DatabaseIdentityLinkStore(database)
        let identity = ExternalIdentity(issuer: "https://login.example.com", subject: "sub-zed")
        let start: Int64 = 2_000_000_000
        func lastUsed() async throws -> Int64? {
            try await database.sql.select().column("last_used_at").from("micro_identity_links").first()?
                .decode(column: "last_used_at", as: Int64.self)
        }
        #expect(try await links.link(identity, to: "zed", now: start))
        #expect(try await lastUsed() == 2_000_000_000)
        #expect(try await links.follow(identity, now: start + 3_600) == "zed")
        #expect(try await lastUsed() == 2_000_000_000)
        #expect(try await links.follow(identity, now: start + Int64(Self.day) + 1) == "zed")
        #expect(try await lastUsed() == 2_000_000_000 + 86_401)
    }

    @Test func theMemoryStoreKeepsAtMostItsCapacity() async throws {
        let links = MemoryIdentityLinkStore(capacity: 2)
        let now = Int64(Date().timeIntervalSince1970)
        func identity(_ subject: String) -> ExternalIdentity { ExternalIdentity(issuer: "https://login.example.com", subject: subject) }
        #expect(try await links.link(identity("a"), to: "a", now: now))
        #expect(try await links.link(identity("b"), to: "b", now: now + 10))
        #expect(try await links.link(identity("c"), to: "c", now: now + 20))
        // The least recently used went.
        #expect(try await links.username(linkedTo: identity("a")) == nil)
        #expect(try await links.username(linkedTo: identity("b")) == "b")
        #expect(try await links.username(linkedTo: identity("c")) == "c")
    }
}
