import Foundation
@testable import MicroCore
import MicroTestSupport
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import Testing

/// The server layer over a real socket on 127.0.0.1: keep-alive, pipelining, HEAD, request
/// bodies, limits, malformed requests, timeouts, graceful shutdown and `100-continue`, each
/// checked as a client sees it (see ``RawHttpClient``).
@Suite struct ServerSocketTests {
    // MARK: Connections

    @Test func keepAliveAnswersTwoRequestsOnOneConnection() async throws {
        try await withServer { server in
            let client = try await RawHttpClient.connect(port: server.port)
            try await client.send("GET /hello HTTP/1.1\r\nHost: localhost\r\n\r\n")
            let first = try await client.readResponse()
            #expect(first.status == 200)
            #expect(first.text == "Hello")
            #expect(first.header("Content-Length") == "5")
            #expect(first.header("Date") != nil)
            #expect(first.header("Connection")?.lowercased() != "close")

            try await Task.sleep(for: .milliseconds(50))
            #expect(!client.isClosed, "the connection closed between two requests")

            try await client.send("GET /hello HTTP/1.1\r\nHost: localhost\r\n\r\n")
            let second = try await client.readResponse()
            #expect(second.status == 200)
            #expect(second.text == "Hello")
            #expect(second.header("Content-Length") == "5")
            #expect(second.header("Date") != nil)
            #expect(!client.isClosed)
            await client.close()
        }
    }

    @Test func pipelinedRequestsAreAnsweredInOrder() async throws {
        try await withServer { server in
            let client = try await RawHttpClient.connect(port: server.port)
            // The first answer is the slowest, so answering in order means waiting for it.
            try await client.send(
                "GET /slow HTTP/1.1\r\nHost: localhost\r\n\r\n"
                    + "GET /hello HTTP/1.1\r\nHost: localhost\r\n\r\n"
                    + "GET /fast HTTP/1.1\r\nHost: localhost\r\n\r\n")
            var bodies: [String] = []
            for _ in 0..<3 {
                let response = try await client.readResponse()
                #expect(response.status == 200)
                bodies.append(response.text)
            }
            #expect(bodies == ["slow", "Hello", "fast"])
            #expect(client.unreadBytes.isEmpty)
            #expect(!client.isClosed)
            await client.close()
        }
    }

    @Test func pipelinedRequestsWaitWhileTheClientReadsNoAnswer() async throws {
        // 60 pipelined requests for 1 MiB answers from a client that reads nothing for half a
        // second: the server takes the next request only while its answers are read, so it
        // prepares about what the kernels' buffers hold (4 MiB and 64 KiB here) and NIO's write
        // buffer, not all 60. Then every one is answered, in order.
        let started = Counter()
        let filler = String(repeating: "a", count: 1 << 20)
        let routes: (App) -> Void = { app in
            app.get("/big/:n") { request in
                started.increment()
                return request.params["n"]! + filler
            }
        }
        try await withServer({ $0.sendTimeout = .seconds(10) }, routes: routes) { server in
            let client = try await RawHttpClient.connect(port: server.port, pacedReads: true)
            try await client.send((0..<60).map { "GET /big/\($0) HTTP/1.1\r\nHost: localhost\r\n\r\n" }.joined())
            try await Task.sleep(for: .milliseconds(500))
            #expect(started.value < 30, "\(started.value) answers were made for a client that read none")
            for n in 0..<60 {
                let response = try await client.readResponse(timeout: 10)
                guard response.status == 200, response.text.hasPrefix("\(n)a") else {
                    Issue.record("answer \(n) was \(response.status) \(response.text.prefix(12))")
                    break
                }
            }
            #expect(started.value == 60)
            #expect(!client.isClosed)
            await client.close()
        }
    }

    @Test func aPipeliningClientHasAtMostAHundredRequestsWaiting() async throws {
        // 150 requests sent at once, then a half-close: NIO reads all of them, whether or not
        // the server asked. At most 100 wait behind the one being answered (by a route that
        // suspends until the half-close: one that does not is answered before the next request
        // is read); the last answer says `Connection: close` and the rest go unanswered.
        try await withServer(routes: waitRoute) { server in
            let client = try await RawHttpClient.connect(port: server.port)
            try await client.send(
                "GET /wait HTTP/1.1\r\nHost: localhost\r\n\r\n"
                    + String(repeating: "GET /hello HTTP/1.1\r\nHost: localhost\r\n\r\n", count: 149))
            // (The server may have answered and closed already, having read all 150 at once.)
            try? await client.closeOutput()
            var answers: [RawHttpClient.Response] = []
            while let response = try? await client.readResponse(timeout: 2) { answers.append(response) }
            #expect(answers.count >= 101 && answers.count < 150, "\(answers.count) answers")
            #expect(answers.allSatisfy { $0.status == 200 })
            #expect(answers.first?.text == "waited")
            #expect(answers.last?.header("Connection") == "close")
            #expect(client.isClosed)
        }
    }

    @Test func aBurstOfPipelinedRequestsIsAnsweredAHundredAtATime() async throws {
        // 3,000 requests for a route that does not suspend, sent at once, from a client that
        // reads its answers: each read answers at most 100 at once and lets the rest wait, so
        // a burst past what may wait ends the connection as above, rather than keeping the
        // event loop answering it.
        try await withServer { server in
            let client = try await RawHttpClient.connect(port: server.port)
            try await client.send(String(repeating: "GET /hello HTTP/1.1\r\nHost: localhost\r\n\r\n", count: 3000))
            var answers: [RawHttpClient.Response] = []
            while let response = try? await client.readResponse(timeout: 2) { answers.append(response) }
            #expect(answers.count > 100 && answers.count < 3000, "\(answers.count) answers")
            #expect(answers.allSatisfy { $0.status == 200 })
            #expect(answers.last?.header("Connection") == "close")
            #expect(client.isClosed)
        }
    }

    @Test func aRequestCutByTheReadAfterAHundredIsAnsweredWhenItsRestArrives() async throws {
        // A hundred requests answered within one read, then the head of a POST whose body
        // comes later: it waits for the loop's next turn, which takes it and reads on.
        try await withServer { server in
            let client = try await RawHttpClient.connect(port: server.port)
            try await client.send(
                String(repeating: "GET /hello HTTP/1.1\r\nHost: localhost\r\n\r\n", count: 100)
                    + "POST /echo HTTP/1.1\r\nHost: localhost\r\nContent-Type: text/plain\r\nContent-Length: 5\r\n\r\n")
            for _ in 0..<100 { #expect(try await client.readResponse().text == "Hello") }
            try await Task.sleep(for: .milliseconds(100))
            try await client.send("abcde")
            #expect(try await client.readResponse().text == "5:abcde")
            #expect(!client.isClosed)
        }
    }

    @Test func aConnectionHasATaskOnlyWhileItAnswers() async throws {
        // Idle between requests, a keep-alive connection holds no task (nor its memory); one
        // whose route suspends has one until the answer is written.
        let entered = Flag()
        let release = Flag()
        try await withServer(routes: { app in
            app.get("/held") { _ in
                entered.set()
                while !release.isSet { try await Task.sleep(for: .milliseconds(5)) }
                return "held"
            }
        }) { server in
            let client = try await RawHttpClient.connect(port: server.port)
            try await client.send("GET /hello HTTP/1.1\r\nHost: localhost\r\n\r\n")
            #expect(try await client.readResponse().text == "Hello")
            #expect(try await !hasTask(server), "an idle connection kept its task")

            try await client.send("GET /held HTTP/1.1\r\nHost: localhost\r\n\r\n")
            try #require(await entered.wait())
            #expect(try await hasTask(server), "a route that suspended has no task to cancel")
            release.set()
            #expect(try await client.readResponse().text == "held")
            #expect(try await !hasTask(server), "the task outlived its answer")
        }
    }

    /// Garbage of 64 KiB goes on after the decoder gave up, over more than one read.
    @Test(arguments: [0, 64 << 10])
    func aMalformedRequestBehindAPipelinedOneIsAnsweredAfterIt(moreGarbage: Int) async throws {
        try await withServer { server in
            let client = try await RawHttpClient.connect(port: server.port)
            try await client.send(
                "GET /slow HTTP/1.1\r\nHost: localhost\r\n\r\nGARBAGE" + String(repeating: "x", count: moreGarbage) + "\r\n\r\n")
            let first = try await client.readResponse()
            #expect(first.status == 200)
            #expect(first.text == "slow")
            let second = try await client.readResponse()
            #expect(second.status == 400)
            #expect(await client.waitForClose(timeout: 2))
        }
    }

    @Test func aClientThatHalfClosesGetsItsAnswersThenTheClose() async throws {
        // The client closes its sending side while its first request is being answered (by a
        // route that answers once the half-close cancels it), with a second one pipelined behind it.
        try await withServer(routes: waitRoute) { server in
            let client = try await RawHttpClient.connect(port: server.port)
            try await client.send("GET /wait HTTP/1.1\r\nHost: localhost\r\n\r\nGET /fast HTTP/1.1\r\nHost: localhost\r\n\r\n")
            try await client.closeOutput()
            let first = try await client.readResponse()
            #expect(first.text == "waited")
            let second = try await client.readResponse()
            #expect(second.text == "fast")
            #expect(second.header("Connection") == "close")
            #expect(await client.waitForClose(timeout: 2))
            #expect(client.unreadBytes.isEmpty)
        }
    }

    @Test func aHalfClosingClientsLastAnswerClosesTheConnection() async throws {
        // Its request asks for `Connection: close`, and another is pipelined behind it: that
        // one goes unanswered, and the connection closes after the first answer.
        try await withServer(routes: waitRoute) { server in
            let client = try await RawHttpClient.connect(port: server.port)
            try await client.send(
                "GET /wait HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\nGET /fast HTTP/1.1\r\nHost: localhost\r\n\r\n")
            try await client.closeOutput()
            let response = try await client.readResponse()
            #expect(response.text == "waited")
            #expect(response.header("Connection") == "close")
            #expect(await client.waitForClose(timeout: 2), "the connection was left open")
            #expect(client.unreadBytes.isEmpty)
        }
    }

    @Test func aRequestBegunDuringAnAnswerHasItsHeaderTimeoutFromItsFirstBytes() async throws {
        // Its first bytes arrive while a slow answer is due, and nothing follows them: it is cut
        // off by the header timeout counted from those bytes, not left the idle timeout. (Bytes
        // that come in the same read as the request before them start no timer: the idle
        // timeout applies to them.)
        let entered = Flag()
        let routes: (App) -> Void = { app in
            app.get("/slower") { _ in
                entered.set()
                try await Task.sleep(for: .milliseconds(600))
                return "slower"
            }
        }
        try await withServer({ $0.headerTimeout = .milliseconds(300); $0.connectionIdleTimeout = .seconds(10) }, routes: routes) { server in
            let client = try await RawHttpClient.connect(port: server.port)
            try await client.send("GET /slower HTTP/1.1\r\nHost: localhost\r\n\r\n")
            try #require(await entered.wait())
            try await client.send("GET /hel")
            let first = try await client.readResponse()
            #expect(first.text == "slower")
            let cut = try await client.readResponse(timeout: 1)
            #expect(cut.status == 408)
        }
    }

    @Test func headIsAnsweredWithoutBodyBytes() async throws {
        try await withServer { server in
            let client = try await RawHttpClient.connect(port: server.port)
            try await client.send("GET /hello HTTP/1.1\r\nHost: localhost\r\n\r\n")
            let get = try await client.readResponse()
            #expect(get.status == 200)

            try await client.send("HEAD /hello HTTP/1.1\r\nHost: localhost\r\n\r\n")
            let head = try await client.readResponse(toHead: true)
            #expect(head.status == 200)
            #expect(head.header("Content-Length") == get.header("Content-Length"))
            #expect(head.header("Content-Length") == "5")

            // Stray body bytes after the HEAD answer would garble this one.
            try await client.send("GET /hello HTTP/1.1\r\nHost: localhost\r\n\r\n")
            let after = try await client.readResponse()
            #expect(after.status == 200)
            #expect(after.text == "Hello")
            #expect(client.unreadBytes.isEmpty)
            await client.close()
        }
    }

    // MARK: Request bodies

    @Test func chunkedRequestBodyIsAccepted() async throws {
        try await withServer { server in
            let client = try await RawHttpClient.connect(port: server.port)
            try await client.send(
                "POST /echo HTTP/1.1\r\nHost: localhost\r\nContent-Type: text/plain\r\nTransfer-Encoding: chunked\r\n\r\n"
                    + "5\r\nHello\r\n7\r\n, world\r\n0\r\n\r\n")
            let response = try await client.readResponse()
            #expect(response.status == 200)
            #expect(response.text == "12:Hello, world")
            await client.close()
        }
    }

    @Test func bodyOverTheLimitGets413() async throws {
        try await withServer({ $0.bodyLimit = 1024 }) { server in
            // A declared length over the limit: refused from the head alone.
            let declared = try await RawHttpClient.connect(port: server.port)
            try await declared.send("POST /echo HTTP/1.1\r\nHost: localhost\r\nContent-Length: 10000\r\n\r\n")
            let refused = try await declared.readResponse(timeout: 1)
            #expect(refused.status == 413)
            #expect(await declared.waitForClose(timeout: 1), "the connection stayed open after a 413")

            // A chunked body that grows over the limit.
            let chunked = try await RawHttpClient.connect(port: server.port)
            try await chunked.send(
                "POST /echo HTTP/1.1\r\nHost: localhost\r\nTransfer-Encoding: chunked\r\n\r\n"
                    + "400\r\n" + String(repeating: "a", count: 1024) + "\r\n"
                    + "10\r\n" + String(repeating: "b", count: 16) + "\r\n")
            let tooLong = try await chunked.readResponse(timeout: 1)
            #expect(tooLong.status == 413)
            #expect(await chunked.waitForClose(timeout: 1), "the connection stayed open after a 413")

            // The server still serves: a body at the limit is fine.
            let fresh = try await RawHttpClient.connect(port: server.port)
            let body = String(repeating: "c", count: 1024)
            try await fresh.send("POST /echo HTTP/1.1\r\nHost: localhost\r\nContent-Type: text/plain\r\nContent-Length: 1024\r\n\r\n" + body)
            let accepted = try await fresh.readResponse()
            #expect(accepted.status == 200)
            #expect(accepted.text == "1024:" + body)
            await fresh.close()
        }
    }

    // MARK: Limits and malformed requests

    @Test func headerFieldsOverTheLimitGet431() async throws {
        try await withServer { server in
            // Over the 16 KiB default, within NIO's parser limit.
            let big = try await RawHttpClient.connect(port: server.port)
            try await big.send("GET /hello HTTP/1.1\r\nHost: localhost\r\nX-Big: \(String(repeating: "a", count: 20 << 10))\r\n\r\n")
            let response = try await big.readResponse(timeout: 2)
            #expect(response.status == 431)
            #expect(await big.waitForClose(timeout: 1))

            // Beyond NIO's own parser limit (80 KiB): still an answer and a close, never a hang.
            let huge = try await RawHttpClient.connect(port: server.port)
            var request = "GET /hello HTTP/1.1\r\nHost: localhost\r\n"
            for index in 0..<10 { request += "X-Huge-\(index): \(String(repeating: "h", count: 10 << 10))\r\n" }
            // The server may stop reading and close before all of it is written.
            try? await huge.send(request + "\r\n")
            let hugeResponse = try await huge.readResponse(timeout: 2)
            #expect(hugeResponse.status == 431)
            #expect(await huge.waitForClose(timeout: 1))

            let fresh = try await RawHttpClient.connect(port: server.port)
            try await fresh.send("GET /hello HTTP/1.1\r\nHost: localhost\r\n\r\n")
            #expect(try await fresh.readResponse().status == 200)
            await fresh.close()
        }
    }

    @Test(arguments: ["GARBAGE\r\n\r\n", "GET / HTTP/9.9x\r\n\r\n", "GET /hello HTTP/1.1\r\nHost localhost\r\n\r\n"])
    func malformedRequestGets400AndClose(request: String) async throws {
        try await withServer { server in
            let client = try await RawHttpClient.connect(port: server.port)
            try await client.send(request)
            let response = try await client.readResponse(timeout: 2)
            #expect(response.status == 400)
            #expect(await client.waitForClose(timeout: 1), "the connection stayed open after a malformed request")
        }
    }

    @Test func badPercentEncodingInThePathGets400() async throws {
        try await withServer { server in
            let client = try await RawHttpClient.connect(port: server.port)
            try await client.send("GET /a%zz HTTP/1.1\r\nHost: localhost\r\n\r\n")
            let response = try await client.readResponse(timeout: 2)
            #expect(response.status == 400)
            await client.close()
        }
    }

    // MARK: Host, CONNECT and upgrades

    @Test(arguments: [
        ("GET /hello HTTP/1.1\r\n\r\n", "no Host"),
        ("GET /hello HTTP/1.1\r\nHost: localhost\r\nHost: evil.example\r\n\r\n", "2 Host"),
        ("GET /hello HTTP/1.0\r\nHost: localhost\r\nhost: evil.example\r\n\r\n", "2 Host"),
    ])
    func aMissingOrRepeatedHostGets400(request: String, says: String) async throws {
        try await withServer { server in
            let client = try await RawHttpClient.connect(port: server.port)
            // A request pipelined behind it is not answered: the connection closes.
            try await client.send(request + "GET /fast HTTP/1.1\r\nHost: localhost\r\n\r\n")
            let response = try await client.readResponse(timeout: 2)
            #expect(response.status == 400)
            #expect(response.header("Content-Type") == "text/plain; charset=utf-8")
            #expect(response.text.contains(says), "\(response.text)")
            #expect(await client.waitForClose(timeout: 2), "the connection stayed open after the 400")
            #expect(client.unreadBytes.isEmpty, "a request after the refused one was answered")
        }
    }

    @Test func anHttp10RequestNeedsNoHost() async throws {
        try await withServer { server in
            let client = try await RawHttpClient.connect(port: server.port)
            try await client.send("GET /hello HTTP/1.0\r\n\r\n")
            let response = try await client.readResponse(timeout: 2)
            #expect(response.status == 200)
            #expect(response.text == "Hello")
            await client.close()
        }
    }

    @Test func connectIsRefusedAndTheConnectionClosed() async throws {
        try await withServer { server in
            let client = try await RawHttpClient.connect(port: server.port)
            // NIO's decoder reads nothing after a CONNECT: the GET behind it must not wait for
            // an answer that never comes.
            try await client.send(
                "CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n"
                    + "GET /hello HTTP/1.1\r\nHost: localhost\r\n\r\n")
            // No body: an answer to CONNECT has none (NIO's encoder drops it), so it ends with
            // the connection.
            let response = try await client.readResponse(timeout: 3)
            #expect(response.status == 501)
            #expect(client.isClosed)
            #expect(response.body.isEmpty, "\(response)")
        }
    }

    @Test func connectBehindAnotherRequestIsAnsweredInItsTurn() async throws {
        try await withServer { server in
            let client = try await RawHttpClient.connect(port: server.port)
            try await client.send(
                "GET /slow HTTP/1.1\r\nHost: localhost\r\n\r\n"
                    + "CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n"
                    + "GET /hello HTTP/1.1\r\nHost: localhost\r\n\r\n")
            let first = try await client.readResponse(timeout: 3)
            #expect(first.status == 200)
            #expect(first.text == "slow")
            let refused = try await client.readResponse(timeout: 3)
            #expect(refused.status == 501)
            #expect(client.isClosed)
        }
    }

    @Test func anUpgradeRequestIsAnsweredAsItIsAndEndsTheConnection() async throws {
        try await withServer { server in
            let client = try await RawHttpClient.connect(port: server.port)
            try await client.send(
                "GET /hello HTTP/1.1\r\nHost: localhost\r\nConnection: keep-alive, Upgrade\r\nUpgrade: websocket\r\n\r\n"
                    + "GET /fast HTTP/1.1\r\nHost: localhost\r\n\r\n")
            let response = try await client.readResponse(timeout: 3)
            #expect(response.status == 200)
            #expect(response.text == "Hello")
            #expect(response.header("Connection")?.lowercased() == "close")
            #expect(await client.waitForClose(timeout: 3), "the connection stayed open after the upgrade request")
            #expect(client.unreadBytes.isEmpty)
        }
    }

    // MARK: Chunked framing

    @Test func chunkExtensionsAreAcceptedWithinTheLimits() async throws {
        try await withServer { server in
            let client = try await RawHttpClient.connect(port: server.port)
            try await client.send(
                "POST /echo HTTP/1.1\r\nHost: localhost\r\nTransfer-Encoding: chunked\r\n\r\n"
                    + "5;name=\"a value\";flag\r\nHello\r\n1;x=y\r\n!\r\n0\r\n\r\n")
            let response = try await client.readResponse(timeout: 3)
            #expect(response.status == 200)
            #expect(response.text == "6:Hello!")
            await client.close()
        }
    }

    @Test func aChunkedUploadOfSmallChunksUpToTheLimitIsAccepted() async throws {
        try await withServer { server in
            // 1 MiB (the default limit) in 100-byte chunks, in several writes.
            let client = try await RawHttpClient.connect(port: server.port)
            try await client.send("POST /echo HTTP/1.1\r\nHost: localhost\r\nTransfer-Encoding: chunked\r\n\r\n")
            let chunk = Array("64\r\n".utf8) + [UInt8](repeating: UInt8(ascii: "u"), count: 100) + Array("\r\n".utf8)
            var sent = 0
            let limit = 1 << 20
            while sent < limit {
                var write: [UInt8] = []
                while sent < limit, write.count < 64 << 10 {
                    if limit - sent >= 100 {
                        write += chunk
                        sent += 100
                    } else {
                        let rest = limit - sent
                        write += Array("\(String(rest, radix: 16))\r\n".utf8) + [UInt8](repeating: UInt8(ascii: "u"), count: rest) + Array("\r\n".utf8)
                        sent = limit
                    }
                }
                try await client.send(write)
            }
            try await client.send("0\r\n\r\n")
            let response = try await client.readResponse(timeout: 10)
            #expect(response.status == 200)
            #expect(response.text.hasPrefix("\(limit):uuu"))
            #expect(response.body.count == "\(limit):".utf8.count + limit)
            await client.close()
        }
    }

    /// Framing around a chunked body of a few bytes: many short chunk extensions around
    /// one-byte chunks (413, as a body over the limit), or one extension that never ends (400).
    enum ChunkFlood: CaseIterable, Sendable {
        case manyExtensions, oneLongExtension

        var pattern: [UInt8] {
            switch self {
            case .manyExtensions: Array("1;e=0123456789abcdef0123456789abcdef\r\nx\r\n".utf8)
            case .oneLongExtension: Array("1;e=".utf8) + [UInt8](repeating: UInt8(ascii: "e"), count: 16 << 20)
            }
        }

        var status: Int { self == .manyExtensions ? 413 : 400 }
    }

    @Test(arguments: ChunkFlood.allCases)
    func chunkExtensionsAreCutOffLikeABodyOverTheLimit(flood: ChunkFlood) async throws {
        try await withServer { server in
            let client = try await RawHttpClient.connect(port: server.port)
            try await client.send("POST /echo HTTP/1.1\r\nHost: localhost\r\nTransfer-Encoding: chunked\r\n\r\n")
            // Up to 16 MiB of framing around a body of a few bytes, in 64 KiB writes, until
            // the server answers or closes.
            var stream: [UInt8] = []
            stream.reserveCapacity(16 << 20)
            while stream.count < 16 << 20 { stream += flood.pattern }
            var sent = 0
            while sent < stream.count, client.receivedCount == 0, !client.isClosed {
                let end = min(stream.count, sent + (64 << 10))
                do { try await client.send(Array(stream[sent..<end])) } catch { break }
                sent = end
            }
            let response = try await client.readResponse(timeout: 10)
            #expect(response.status == flood.status, "\(response)")
            #expect(await client.waitForClose(timeout: 3), "the connection stayed open")
            #expect(sent < stream.count, "all 16 MiB were sent before the server answered")
        }
    }

    // MARK: Timeouts

    @Test func idleKeepAliveConnectionIsClosed() async throws {
        // Bounds wide enough for a loaded machine, narrow enough to tell the timeout did it.
        try await withServer({ $0.connectionIdleTimeout = .seconds(3) }) { server in
            for _ in 1...3 {
                // The server's idle time for a new connection cannot start before the connect.
                let connecting = ContinuousClock.now
                let client = try await RawHttpClient.connect(port: server.port)
                // The server answers after `sent`, so its idle time ends after `sent` + 3 s,
                // however late this task sees the answer.
                let sent = ContinuousClock.now
                let response: RawHttpClient.Response
                do {
                    try await client.send("GET /hello HTTP/1.1\r\nHost: localhost\r\n\r\n")
                    response = try await client.readResponse()
                } catch {
                    // A new connection is idle too until its request arrives: with every suite
                    // running (under the address sanitizer, once), this task stalled longer
                    // than the timeout between the connect and the send (and between the connect
                    // and `sent`: under the thread sanitizer, once, the close came 1.3 s after
                    // `sent`). Then try again.
                    #expect(ContinuousClock.now - connecting >= .seconds(3), "closed before its request, too early: \(error)")
                    continue
                }
                #expect(response.status == 200)
                let answered = ContinuousClock.now
                #expect(await client.waitForClose(timeout: 10), "the idle connection was never closed")
                let closed = ContinuousClock.now
                #expect(closed - sent >= .seconds(3), "closed too early: \(closed - sent) after the request")
                #expect(closed - answered < .seconds(8), "closed too late: \(closed - answered) after the answer")
                #expect(client.unreadBytes.isEmpty)
                return
            }
            Issue.record("three connections in a row were closed before their request arrived")
        }
    }

    @Test func aSlowDownloadIsNotCutByTheIdleTimeout() async throws {
        // 24 MiB read in small steps: the answer takes longer to send than the idle timeout
        // (3 s: a connection must survive, idle, from its connect to its request on a loaded
        // machine), and it is sent whole because the client keeps reading.
        let (folder, size) = try publicFolderWithABigFile()
        defer { folder.remove() }
        // The send timeout (an answer that makes no progress) well above the idle one: with the
        // whole suite running at once, this client's task once stalled for over 5 s, and the
        // send timeout, not the idle one this test is about, cut the download.
        try await withServer({ $0.publicFolder = folder.file("public"); $0.connectionIdleTimeout = .seconds(3); $0.sendTimeout = .seconds(15) }) { server in
            var connection: RawHttpClient?
            var started = ContinuousClock.now
            for _ in 1...3 where connection == nil {
                let connecting = ContinuousClock.now
                let client = try await RawHttpClient.connect(port: server.port, pacedReads: true)
                started = ContinuousClock.now
                do {
                    try await client.send("GET /big.bin HTTP/1.1\r\nHost: localhost\r\n\r\n")
                    connection = client
                } catch {
                    // A new connection is idle until its request arrives: with every suite
                    // running under the thread sanitizer, this task stalled longer than the idle
                    // timeout between the connect and the send (as in
                    // `idleKeepAliveConnectionIsClosed`). Then try again.
                    #expect(ContinuousClock.now - connecting >= .seconds(3), "closed before its request, too early: \(error)")
                }
            }
            guard let client = connection else {
                Issue.record("three connections in a row were closed before their request arrived")
                return
            }
            while client.receivedCount < size, !client.isClosed, ContinuousClock.now - started < .seconds(60) {
                client.readMore()
                try await Task.sleep(for: .milliseconds(60))
            }
            let took = ContinuousClock.now - started
            guard client.receivedCount >= size else {
                Issue.record("the download was cut off after \(client.receivedCount) of \(size) bytes, \(took) in")
                return
            }
            let response = try await client.readResponse(timeout: 5)
            #expect(response.status == 200)
            #expect(response.body.count == size)
            // How much a read takes depends on the kernel's socket buffers: the download must
            // only outlast the idle timeout, with a second to spare.
            #expect(took > .seconds(4), "the download was too quick (\(took)) to outlast the idle timeout")
        }
    }

    /// How a client that stops reading its answer goes on.
    enum Stall: String, CaseIterable, Sendable {
        /// It waits, on a keep-alive connection.
        case keepAlive
        /// It waits, after asking for `Connection: close`.
        case closing
        /// It sends small requests meanwhile, which must not buy it more time.
        case sendingMore
    }

    @Test(arguments: Stall.allCases)
    func aClientThatStopsReadingIsCutOff(_ stall: Stall) async throws {
        let (folder, size) = try publicFolderWithABigFile()
        defer { folder.remove() }
        try await withServer({ $0.publicFolder = folder.file("public"); $0.sendTimeout = .milliseconds(500) }) { server in
            let client = try await RawHttpClient.connect(port: server.port, pacedReads: true)
            try await client.send("GET /big.bin HTTP/1.1\r\nHost: localhost\r\n\(stall == .closing ? "Connection: close\r\n" : "")\r\n")
            client.readMore()
            // Reads nothing for ten times the send timeout (the idle timeout is 10 s)...
            for _ in 0..<25 {
                try await Task.sleep(for: .milliseconds(200))
                if stall == .sendingMore { try? await client.send("GET /hello HTTP/1.1\r\nHost: localhost\r\n\r\n") }
            }
            // ...then takes what is left: what the kernels held, not the whole file.
            let started = ContinuousClock.now
            while !client.isClosed, ContinuousClock.now - started < .seconds(20) {
                client.readMore()
                try await Task.sleep(for: .milliseconds(1))
            }
            #expect(client.isClosed, "the stalled connection was never closed")
            #expect(client.receivedCount < size, "the whole file arrived: the stall was not cut off")
        }
    }

    @Test func slowHeadersAreCutOff() async throws {
        try await withServer({ $0.headerTimeout = .milliseconds(300); $0.connectionIdleTimeout = .seconds(10) }) { server in
            let slow = try await RawHttpClient.connect(port: server.port)
            let started = ContinuousClock.now
            try await slow.send("GET /hello HTTP/1.1\r\n")
            let trickle = Task {
                for byte in Array("X-Slow: 0123456789012345678901234567890123456789".utf8) {
                    if slow.isClosed || ContinuousClock.now - started > .seconds(5) { return }
                    try? await slow.send([byte])
                    try? await Task.sleep(for: .milliseconds(100))
                }
            }

            // Meanwhile another client is served at once.
            try await Task.sleep(for: .milliseconds(50))
            let normal = try await RawHttpClient.connect(port: server.port)
            let asked = ContinuousClock.now
            try await normal.send("GET /hello HTTP/1.1\r\nHost: localhost\r\n\r\n")
            let response = try await normal.readResponse(timeout: 1)
            #expect(response.status == 200)
            #expect(ContinuousClock.now - asked < .seconds(1))
            await normal.close()

            // The server says why when the header timeout fires, then closes (after a short
            // linger, so the answer is not lost to a reset while the client still sends).
            let timedOut = try await slow.readResponse(timeout: 2)
            let elapsed = ContinuousClock.now - started
            #expect(timedOut.status == 408)
            // Well before the idle and body timeouts (10 s), with room for a sanitizer: `elapsed`
            // also counts the other client's turn, which took over 2 s once (thread sanitizer,
            // every suite running).
            #expect(elapsed < .seconds(6), "cut off too late: \(elapsed)")
            #expect(elapsed >= .milliseconds(200), "cut off too early: \(elapsed)")
            let closed = await slow.waitForClose(timeout: 3)
            trickle.cancel()
            await trickle.value
            #expect(closed, "the slow client was never cut off")
        }
    }

    // MARK: Shutdown

    @Test func gracefulShutdownFinishesTheRequestInFlight() async throws {
        let entered = Flag()
        let server = try await startServer({ $0.shutdownTimeout = .seconds(5) }) { app in
            app.get("/sleepy") { _ in
                entered.set()
                try await Task.sleep(for: .milliseconds(300))
                return "Slept well"
            }
        }
        let port = server.port
        let client = try await RawHttpClient.connect(port: port)
        try await client.send("GET /sleepy HTTP/1.1\r\nHost: localhost\r\n\r\n")
        try #require(await entered.wait(), "the request never reached the route")

        let began = ContinuousClock.now
        async let clean = server.shutdown()
        let response = try await client.readResponse(timeout: 3)
        #expect(response.status == 200)
        #expect(response.text == "Slept well")
        #expect(await clean, "shutdown reported connections still busy")
        // Done when the answer is, well before the shutdown timeout (5 s), however slow the
        // machine (under the thread sanitizer, with every suite running, it took 2.2 s once).
        #expect(ContinuousClock.now - began < .seconds(3.5))
        #expect(await client.waitForClose(timeout: 1))

        await #expect(throws: (any Error).self, "a new connection was accepted after the shutdown") {
            let late = try await RawHttpClient.connect(port: port, timeout: 1)
            await late.close()
        }
    }

    @Test func atShutdownTheAnswerUnderWayIsTheConnectionsLast() async throws {
        let entered = Flag()
        let quiesced = Flag()
        let server = try await startServer({ $0.shutdownTimeout = .seconds(3) }) { app in
            app.get("/sleepy") { _ in
                entered.set()
                // Answers once the shutdown has reached its connection, however slow the machine:
                // a fixed wait could end before it arrives.
                await waitIgnoringCancellation(for: quiesced, then: 0)
                return "Slept well"
            }
        }
        // One connection idle after an answer; one with a request under way and another
        // pipelined behind it.
        let idle = try await RawHttpClient.connect(port: server.port)
        try await idle.send("GET /hello HTTP/1.1\r\nHost: localhost\r\n\r\n")
        #expect(try await idle.readResponse().status == 200)
        let busy = try await RawHttpClient.connect(port: server.port)
        try await busy.send("GET /sleepy HTTP/1.1\r\nHost: localhost\r\n\r\nGET /hello HTTP/1.1\r\nHost: localhost\r\n\r\n")
        try #require(await entered.wait(), "the request never reached the route")
        let busyChannel = try #require(await answeringChannel(server), "no connection was answering")
        let watcher = Task {
            // The shutdown has reached the busy connection once its handler takes no more requests.
            while !Task.isCancelled {
                let reached = try? await busyChannel.withHttpHandler { !$0.waiting.acceptsMore }
                if reached ?? true { break }
                try? await Task.sleep(for: .milliseconds(2))
            }
            quiesced.set()
        }
        defer { watcher.cancel() }

        // Shut down from this task, not a child one: with every suite running, a child task
        // could start late (once, the idle connection was still open 1 s after the `async let`).
        // The shutdown is clean only when every connection closed before its timeout (3 s),
        // the idle one included: it must not wait to be closed by force.
        #expect(await server.shutdown(), "a connection was still open when the shutdown's time was up")
        #expect(await idle.waitForClose(timeout: 1), "the idle connection was not closed")
        let response = try await busy.readResponse(timeout: 3)
        #expect(response.text == "Slept well")
        #expect(response.header("Connection") == "close")
        #expect(await busy.waitForClose(timeout: 1))
        #expect(busy.unreadBytes.isEmpty, "the request behind it was answered during the shutdown")
    }

    @Test func shutdownClosesWhatIsStillBusyWhenItsTimeIsUp() async throws {
        let entered = Flag()
        let server = try await startServer({ $0.shutdownTimeout = .milliseconds(200) }) { app in
            app.get("/stuck") { _ in
                entered.set()
                try await Task.sleep(for: .seconds(5))
                return "too late"
            }
        }
        let client = try await RawHttpClient.connect(port: server.port)
        try await client.send("GET /stuck HTTP/1.1\r\nHost: localhost\r\n\r\n")
        try #require(await entered.wait(), "the request never reached the route")
        #expect(await server.shutdown() == false)
        #expect(await client.waitForClose(timeout: 2), "the busy connection was left open")
    }

    @Test func aRouteIsCancelledWhenItsClientLeaves() async throws {
        let entered = Flag()
        let cancelled = Flag()
        try await withServer(routes: longRoute(entered: entered, cancelled: cancelled)) { server in
            let client = try await RawHttpClient.connect(port: server.port)
            try await client.send("GET /long HTTP/1.1\r\nHost: localhost\r\n\r\n")
            try #require(await entered.wait())
            await client.close()
            #expect(await cancelled.wait(), "the route kept running for a client that left")
        }
    }

    @Test func aRouteIsCancelledWhenItsClientLeftWithTheRequest() async throws {
        // The request and the close arrive together: the connection is gone before the
        // route's turn comes, and the route is cancelled at its first suspension.
        let entered = Flag()
        let cancelled = Flag()
        try await withServer(routes: longRoute(entered: entered, cancelled: cancelled)) { server in
            let client = try await RawHttpClient.connect(port: server.port)
            try await client.send("GET /long HTTP/1.1\r\nHost: localhost\r\n\r\n")
            await client.close()
            _ = await cancelled.wait(upTo: 3)
            #expect(!entered.isSet || cancelled.isSet, "the route kept running for a client that left")
        }
    }

    // MARK: Routes over one connection

    @Test func aConnectionsLaterRoutesRunAfterOnesThatSuspendedAndAreNotCancelled() async throws {
        // One task runs a connection's routes in turn (see HttpHandler): each route here
        // suspends, and none may see a cancellation its client never caused.
        try await withServer(routes: napRoute) { server in
            let client = try await RawHttpClient.connect(port: server.port)
            for _ in 0..<3 {
                try await client.send("GET /nap HTTP/1.1\r\nHost: localhost\r\n\r\n")
                #expect(try await client.readResponse().text == "rested")
            }
            try await client.send(
                "GET /nap HTTP/1.1\r\nHost: localhost\r\n\r\nGET /fast HTTP/1.1\r\nHost: localhost\r\n\r\nGET /nap HTTP/1.1\r\nHost: localhost\r\n\r\n")
            #expect(try await client.readResponse().text == "rested")
            #expect(try await client.readResponse().text == "fast")
            #expect(try await client.readResponse().text == "rested")
            await client.close()
        }
    }

    @Test func aRouteRunsOnItsConnectionsEventLoopAlsoAfterItSuspends() async throws {
        // Before and after its awaits, in its child tasks and in a default actor's methods it
        // calls, a route is on one event loop; in an actor with an executor of its own (another
        // loop), it is there, and comes back.
        let elsewhere = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        do {
            try await withServer(routes: whereRoute(elsewhere: LoopActor(loop: elsewhere.next()))) { server in
                let client = try await RawHttpClient.connect(port: server.port)
                for _ in 0..<2 {
                    try await client.send("GET /where HTTP/1.1\r\nHost: localhost\r\n\r\n")
                    let response = try await client.readResponse()
                    #expect(response.status == 200)
                    #expect(response.text == "one loop; the actor's own loop: yes")
                }
                await client.close()
            }
        } catch {
            try? await elsewhere.shutdownGracefully()
            throw error
        }
        try await elsewhere.shutdownGracefully()
    }

    // MARK: Expect

    @Test func expectContinueGets100BeforeTheFinalResponse() async throws {
        try await withServer { server in
            let client = try await RawHttpClient.connect(port: server.port)
            try await client.send(
                "POST /echo HTTP/1.1\r\nHost: localhost\r\nContent-Type: text/plain\r\nContent-Length: 5\r\nExpect: 100-continue\r\n\r\n")
            let interim = try await client.readResponse(timeout: 2)
            #expect(interim.status == 100)
            #expect(interim.body.isEmpty)
            try await client.send("Hello")
            let final = try await client.readResponse(timeout: 2)
            #expect(final.status == 200)
            #expect(final.text == "5:Hello")
            await client.close()
        }
    }
}

// MARK: - Helpers

/// Starts an app on a free port with the routes the tests use, test settings, and short
/// timeouts; `configure` adjusts the settings and `routes` adds more.
func startServer(
    _ configure: (inout Settings) -> Void = { _ in }, routes: (App) -> Void = { _ in }
) async throws -> RunningServer {
    var settings = Settings()
    settings.port = 0
    settings.environment = .test
    settings.accessLog = false
    settings.publicFolder = nil
    // Long enough that a test stalled by a loaded machine (or a sanitizer) is not cut off;
    // the tests of the timeouts set short ones.
    settings.connectionIdleTimeout = .seconds(10)
    settings.headerTimeout = .seconds(10)
    settings.bodyTimeout = .seconds(10)
    settings.shutdownTimeout = .seconds(1)
    configure(&settings)
    let app = App(settings: settings, logger: .quietForTests)
    app.get("/hello") { _ in "Hello" }
    app.get("/fast") { _ in "fast" }
    app.get("/slow") { _ in
        try await Task.sleep(for: .milliseconds(50))
        return "slow"
    }
    app.post("/echo") { request in
        "\(request.body.readableBytes):" + String(buffer: request.body)
    }
    // These tests are about the transport; CSRF protection has its own tests.
    app.skipCsrf("/echo")
    routes(app)
    return try await app.start()
}

/// Runs `body` against a server from ``startServer(_:routes:)``, and shuts it down after.
func withServer(
    _ configure: (inout Settings) -> Void = { _ in }, routes: (App) -> Void = { _ in },
    _ body: (RunningServer) async throws -> Void
) async throws {
    let server = try await startServer(configure, routes: routes)
    do {
        try await body(server)
    } catch {
        await server.shutdown()
        throw error
    }
    await server.shutdown()
}

/// A folder whose `public/big.bin` holds 24 MiB: far more than the kernel's socket buffers on
/// loopback (4 MiB at most here), so sending it takes as long as the client takes to read it.
private func publicFolderWithABigFile() throws -> (folder: TemporaryFolder, size: Int) {
    let folder = try TemporaryFolder(["public/big.bin": ""])
    let size = 24 << 20
    try Data(repeating: 0x61, count: size).write(to: URL(fileURLWithPath: folder.file("public/big.bin")))
    return (folder, size)
}

/// `GET /long`: raises `entered`, then sleeps 5 s unless cancelled, and raises `cancelled` if it is.
private func longRoute(entered: Flag, cancelled: Flag) -> (App) -> Void {
    { app in
        app.get("/long") { _ in
            entered.set()
            do {
                try await Task.sleep(for: .seconds(5))
            } catch {
                cancelled.set()
                throw error
            }
            return "done"
        }
    }
}

/// `GET /nap`: sleeps 20 ms, then answers "rested", or "cancelled" when its task was cancelled.
private func napRoute(_ app: App) {
    app.get("/nap") { _ in
        try? await Task.sleep(for: .milliseconds(20))
        return Task.isCancelled ? "cancelled" : "rested"
    }
}

/// An open connection whose handler is answering a request, if any.
private func answeringChannel(_ server: RunningServer) async -> (any Channel)? {
    for channel in server.server.connections.open {
        let answering = try? await channel.withHttpHandler { $0.answering }
        if answering == true { return channel }
    }
    return nil
}

/// Whether the server's one open connection has a task now (asked on its event loop).
private func hasTask(_ server: RunningServer) async throws -> Bool {
    let channels = server.server.connections.open
    try #require(channels.count == 1)
    return try await channels[0].withHttpHandler { $0.answering }
}

/// The event loop the caller runs on, if any.
@Sendable private func currentLoop() -> ObjectIdentifier? {
    MultiThreadedEventLoopGroup.currentEventLoop.map { ObjectIdentifier($0 as AnyObject) }
}

/// An actor with an executor of its own: an event loop of another group.
private actor LoopActor {
    let loop: any EventLoop
    nonisolated var unownedExecutor: UnownedSerialExecutor { loop.executor.asUnownedSerialExecutor() }
    init(loop: any EventLoop) { self.loop = loop }
    func whereAmI() -> ObjectIdentifier? { currentLoop() }
}

/// An actor with the default executor.
private actor DefaultActor {
    func whereAmI() -> ObjectIdentifier? { currentLoop() }
}

/// `GET /where`: notes which event loop the route runs on at its start, in an `async let`, in
/// a task group's tasks (after they sleep), in a default actor, after sleeping, and after
/// calling `elsewhere`; answers whether all of those are one loop, and whether `elsewhere` ran
/// on its own loop.
private func whereRoute(elsewhere: LoopActor) -> (App) -> Void {
    { app in
        app.get("/where") { _ in
            let start = currentLoop()
            async let child = currentLoop()
            let group = await withTaskGroup(of: ObjectIdentifier?.self) { group in
                for _ in 0..<3 {
                    group.addTask {
                        try? await Task.sleep(for: .milliseconds(2))
                        return currentLoop()
                    }
                }
                return await group.reduce(into: [ObjectIdentifier?]()) { $0.append($1) }
            }
            let inDefaultActor = await DefaultActor().whereAmI()
            try await Task.sleep(for: .milliseconds(5))
            let afterSleep = currentLoop()
            let inElsewhere = await elsewhere.whereAmI()
            let afterElsewhere = currentLoop()
            let seen = [await child, inDefaultActor, afterSleep, afterElsewhere] + group
            let oneLoop = start != nil && seen.allSatisfy { $0 == start }
            let ownLoop = inElsewhere == ObjectIdentifier(elsewhere.loop as AnyObject)
            return (oneLoop ? "one loop" : "loops: \(start.map { "\($0)" } ?? "none") then \(seen)")
                + "; the actor's own loop: \(ownLoop ? "yes" : "no")"
        }
    }
}

/// `GET /wait`: answers "waited" once it is cancelled, which the server does when it sees
/// its client's half-close; "never cancelled" if that has not happened within 3 s (within the
/// test client's 5 s wait for an answer, so the test can tell).
func waitRoute(_ app: App) {
    app.get("/wait") { _ in
        let deadline = ContinuousClock.now + .seconds(3)
        while !Task.isCancelled, ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(5))
        }
        return Task.isCancelled ? "waited" : "never cancelled"
    }
}

/// Returns once `flag` is raised and `seconds` more have passed (for a shutdown to reach the
/// server), whether or not the task is cancelled.
private func waitIgnoringCancellation(for flag: Flag, then seconds: Double) async {
    await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
        @Sendable func poll() {
            if flag.isSet {
                DispatchQueue.global().asyncAfter(deadline: .now() + seconds) { done.resume() }
            } else {
                DispatchQueue.global().asyncAfter(deadline: .now() + 0.005) { poll() }
            }
        }
        poll()
    }
}

/// A count that routes raise and a test reads.
private final class Counter: Sendable {
    private let count = NIOLockedValueBox(0)

    /// The count so far.
    var value: Int { count.withLockedValue { $0 } }

    /// Adds one.
    func increment() { count.withLockedValue { $0 += 1 } }
}
