import Foundation
import MicroCore
import MicroTestSupport
import MicroTesting
import Testing

/// A list a page at a time: by page number (any list, and a select with `LIMIT` and `OFFSET`)
/// and by key (a select that reads after or before a row's id), the links keeping the list's
/// filters, and what a client may send refused with a 400 or read as the nearest page.
@Suite struct PagingTests {
    private struct Item: Codable, Sendable {
        var id: Int
        var name: String
    }

    private struct Listing: Codable {
        var ids: [Int]
        var next: String?
        var previous: String?
    }

    /// An app listing the numbers 1 to 57 (`/numbers`, numbered pages of 10, `?odd=1` keeps the
    /// odd ones), and the rows of `items` (ids 1 to 57) by key (`/items`, newest first) and by
    /// number (`/numbered`).
    private func withApp(_ body: (TestClient, Database) async throws -> Void) async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let database = try await Database.sqlite(path: folder.file("app.db"))
        database.migrations.add("1 items") { sql in
            try await sql.create(table: "items").column("id", type: .bigint, .primaryKey(autoIncrement: false)).column("name", type: .text, .notNull).run()
            for id in 1...57 { try await sql.insert(into: "items").model(Item(id: id, name: "item \(id)")).run() }
        }
        let app = App()
        app.use(database)
        app.get("/numbers") { request in
            let paging = try request.paging(size: 10, maxPage: 50)
            let odd = request.params["odd"] == "1"
            let numbers = Array(1...57).filter { !odd || $0 % 2 == 1 }.dropFirst(paging.offset).prefix(paging.limit)
            let page = paging.page(Array(numbers))
            return JsonBody(Listing(ids: page.items, next: page.next, previous: page.previous))
        }
        app.get("/first-three-pages") { request in
            let paging = try request.paging(size: 10, maxPage: 3)
            let page = paging.page(Array(Array(1...57).dropFirst(paging.offset).prefix(paging.limit)))
            return JsonBody(Listing(ids: page.items, next: page.next, previous: page.previous))
        }
        app.get("/items") { request in
            let page = try await request.database.sql.select().columns("*").from("items")
                .page(try request.paging(size: 10), orderedBy: "id", descending: true, decoding: Item.self, key: \.id)
            return JsonBody(Listing(ids: page.items.map(\.id), next: page.next, previous: page.previous))
        }
        app.get("/numbered") { request in
            let page = try await request.database.sql.select().columns("*").from("items").orderBy("id", .descending)
                .page(try request.paging(size: 10), decoding: Item.self)
            return JsonBody(Listing(ids: page.items.map(\.id), next: page.next, previous: page.previous))
        }
        do {
            try await body(TestClient(app), database)
        } catch {
            await database.shutdown()
            throw error
        }
        await database.shutdown()
    }

    /// Follows `next` (or `previous`) links from `start`: each page's ids.
    private func walk(_ client: TestClient, from start: String, _ direction: KeyPath<Listing, String?>) async throws -> [[Int]] {
        var pages: [[Int]] = []
        var link: String? = start
        while let uri = link, pages.count < 20 {
            let listing = try await client.get(uri).decode(Listing.self)
            pages.append(listing.ids)
            link = listing[keyPath: direction]
        }
        return pages
    }

    @Test func numberedPagesLinkToTheirNeighboursKeepingTheFilters() async throws {
        try await withApp { client, _ in
            let pages = try await walk(client, from: "/numbers", \.next)
            #expect(pages.map(\.count) == [10, 10, 10, 10, 10, 7])
            #expect(pages.flatMap { $0 } == Array(1...57))
            let third = try await client.get("/numbers?page=3").decode(Listing.self)
            #expect(third.next == "/numbers?page=4" && third.previous == "/numbers?page=2")
            // The filter stays in both links; the first page's link has no number.
            let odd = try await client.get("/numbers?odd=1&page=2").decode(Listing.self)
            #expect(odd.ids == Array(stride(from: 21, through: 39, by: 2)))
            #expect(odd.next == "/numbers?page=3&odd=1" && odd.previous == "/numbers?odd=1")
        }
    }

    @Test func aPageNumberOutOfRangeIsTheNearestPageAndOneThatIsNoNumberA400() async throws {
        try await withApp { client, _ in
            for page in ["0", "-3", "--1"] {
                #expect(try await client.get("/numbers?page=\(page)").decode(Listing.self).ids == Array(1...10), "\(page)")
            }
            // Past the end, and past the highest page: empty, a way back, no arithmetic overflow.
            for page in ["9", "99999999999999999999999"] {
                let answer = try await client.get("/numbers?page=\(page)")
                #expect(answer.status == .ok, "\(page)")
                #expect(try answer.decode(Listing.self).ids.isEmpty && answer.decode(Listing.self).previous != nil)
            }
            // The highest page links back, and not on to a page that is itself again.
            let last = try await client.get("/first-three-pages?page=3").decode(Listing.self)
            #expect(last.ids == Array(21...30) && last.next == nil && last.previous == "/first-three-pages?page=2")
            for page in ["abc", "", "1.5", "٣", "3\u{301}", "1e3"] {
                let answer = try await client.get("/numbers?page=" + (page.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""))
                #expect(answer.status == .badRequest, "\(page)")
                #expect(answer.text.contains("whole number"))
            }
        }
    }

    @Test func keyedPagesWalkForwardAndBackAndStayRightWhileRowsAreAdded() async throws {
        try await withApp { client, database in
            let forward = try await walk(client, from: "/items", \.next)
            #expect(forward.flatMap { $0 } == Array((1...57).reversed()))
            #expect(forward.map(\.count) == [10, 10, 10, 10, 10, 7])
            let first = try await client.get("/items").decode(Listing.self)
            #expect(first.next == "/items?after=48" && first.previous == nil)
            // Back from the last page to the first, page by page.
            let last = try await client.get("/items?after=8").decode(Listing.self)
            #expect(last.ids == Array((1...7).reversed()) && last.next == nil)
            let backward = try await walk(client, from: "/items?after=8", \.previous)
            #expect(backward.reversed().flatMap { $0 } == Array((1...57).reversed()))
            // A row added at the top does not move the rows of a later page, as an offset would.
            try await database.sql.insert(into: "items").model(Item(id: 58, name: "new")).run()
            #expect(try await client.get("/items?after=48").decode(Listing.self).ids == Array((38...47).reversed()))
            #expect(try await client.get("/numbered?page=2").decode(Listing.self).ids == Array((39...48).reversed()))
            let top = try await client.get("/items?before=48").decode(Listing.self)
            #expect(top.ids == Array((49...58).reversed()) && top.previous == nil && top.next == "/items?after=49")
        }
    }

    @Test func numberedRowsComeFromTheSelectsOwnOrder() async throws {
        try await withApp { client, _ in
            let pages = try await walk(client, from: "/numbered", \.next)
            #expect(pages.flatMap { $0 } == Array((1...57).reversed()))
            #expect(try await client.get("/numbered?page=6").decode(Listing.self).previous == "/numbered?page=5")
        }
    }

    @Test func aCursorThatIsNoKeyOfTheListIsA400() async throws {
        try await withApp { client, _ in
            for query in ["after=abc", "before=1.5", "after=", "after=\(String(repeating: "9", count: 201))", "after=4\u{301}", "after=3&before=9"] {
                let answer = try await client.get("/items?" + query.replacingOccurrences(of: "\u{301}", with: "%CC%81"))
                #expect(answer.status == .badRequest, "\(query)")
            }
            // Invalid UTF-8 in a cursor is refused before any route sees it.
            #expect(try await client.get("/items?after=%FF%FE").status == .badRequest)
        }
    }
}
