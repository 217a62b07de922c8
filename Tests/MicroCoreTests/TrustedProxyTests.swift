import MicroCore
import MicroTestSupport
import MicroTesting
import Testing

/// `settings.trustedProxies`: whose `X-Forwarded-For` and `X-Forwarded-Host` count.
@Suite struct TrustedProxyTests {
    private func app(trusting proxies: [String] = []) -> App {
        let app = testApp {
            $0.trustedProxies = proxies
            $0.allowedHosts = ["tools.example.com"]
        }
        app.get("/who") { request in "\(request.clientAddress ?? "none") \(request.host ?? "none")" }
        return app
    }

    private func who(_ app: App, from peer: String, _ headers: HttpHeaders = [:]) async throws -> String {
        let client = TestClient(app)
        client.remoteAddress = peer
        return try await client.get("/who", headers: headers).text
    }

    @Test func forwardingHeadersAreIgnoredByDefault() async throws {
        let headers: HttpHeaders = ["X-Forwarded-For": "203.0.113.7", "X-Forwarded-Host": "evil.example"]
        #expect(try await who(app(), from: "127.0.0.1", headers) == "127.0.0.1 localhost")
    }

    @Test func forwardingHeadersAreIgnoredFromAPeerThatIsNotAProxy() async throws {
        let headers: HttpHeaders = ["X-Forwarded-For": "203.0.113.7", "X-Forwarded-Host": "evil.example"]
        #expect(try await who(app(trusting: ["127.0.0.1"]), from: "198.51.100.9", headers) == "198.51.100.9 localhost")
    }

    @Test func aTrustedProxyNamesTheClientAndTheHost() async throws {
        let app = app(trusting: ["127.0.0.1"])
        let headers: HttpHeaders = ["X-Forwarded-For": "203.0.113.7", "X-Forwarded-Host": "tools.example.com"]
        #expect(try await who(app, from: "127.0.0.1", headers) == "203.0.113.7 tools.example.com")
        // A dual-stack socket shows an IPv4 peer as an IPv4-mapped IPv6 address.
        #expect(try await who(app, from: "::ffff:127.0.0.1", headers) == "203.0.113.7 tools.example.com")
    }

    @Test func theClientCannotChooseItsAddressByWritingTheHeaderItself() async throws {
        // The client sent `X-Forwarded-For: 10.9.9.9`; the proxy appended the address it saw.
        let app = app(trusting: ["127.0.0.1", "10.0.0.0/8"])
        #expect(try await who(app, from: "127.0.0.1", ["X-Forwarded-For": "10.9.9.9, 203.0.113.7"]).hasPrefix("203.0.113.7 "))
        #expect(try await who(app, from: "127.0.0.1", ["X-Forwarded-For": "1.2.3.4, 203.0.113.7"]).hasPrefix("203.0.113.7 "))
        // Two trusted proxies in a row: the first untrusted address from the right.
        #expect(try await who(app, from: "127.0.0.1", ["X-Forwarded-For": "1.2.3.4, 203.0.113.7, 10.0.0.5"]).hasPrefix("203.0.113.7 "))
        // The same list over two header lines.
        let split = HttpHeaders([("X-Forwarded-For", "1.2.3.4, 203.0.113.7"), ("X-Forwarded-For", "10.0.0.5")])
        #expect(try await who(app, from: "127.0.0.1", split).hasPrefix("203.0.113.7 "))
        // Only proxies on the way: the farthest one.
        #expect(try await who(app, from: "127.0.0.1", ["X-Forwarded-For": "10.0.0.6, 10.0.0.5"]).hasPrefix("10.0.0.6 "))
    }

    @Test func aMalformedEntryStopsAtTheLastTrustedHop() async throws {
        let app = app(trusting: ["127.0.0.1", "10.0.0.0/8"])
        for forwarded in ["nonsense", "203.0.113.7, unknown", "", " , ", "203.0.113.7, 999.1.1.1"] {
            #expect(try await who(app, from: "127.0.0.1", ["X-Forwarded-For": forwarded]).hasPrefix("127.0.0.1 "), "\(forwarded)")
        }
        #expect(try await who(app, from: "127.0.0.1", ["X-Forwarded-For": "203.0.113.7, x, 10.0.0.5"]).hasPrefix("10.0.0.5 "))
    }

    @Test func portsBracketsAndIpv6AreRead() async throws {
        let app = app(trusting: ["127.0.0.1", "fd00::/8"])
        #expect(try await who(app, from: "127.0.0.1", ["X-Forwarded-For": "203.0.113.7:4711"]).hasPrefix("203.0.113.7 "))
        #expect(try await who(app, from: "127.0.0.1", ["X-Forwarded-For": "[2001:db8::1]:443"]).hasPrefix("2001:db8::1 "))
        #expect(try await who(app, from: "fd12::1", ["X-Forwarded-For": "2001:db8::1, fd00::2"]).hasPrefix("2001:db8::1 "))
        #expect(try await who(app, from: "fe80::1", ["X-Forwarded-For": "2001:db8::1"]).hasPrefix("fe80::1 "))
    }

    @Test func theNearestProxysForwardedHostCounts() async throws {
        let app = app(trusting: ["127.0.0.1"])
        let lines = HttpHeaders([("X-Forwarded-Host", "evil.example"), ("X-Forwarded-Host", "tools.example.com")])
        #expect(try await who(app, from: "127.0.0.1", lines).hasSuffix(" tools.example.com"))
        #expect(try await who(app, from: "127.0.0.1", ["X-Forwarded-Host": "evil.example, tools.example.com"]).hasSuffix(" tools.example.com"))
    }

    @Test func addressesAreWrittenOneWay() async throws {
        // So that one client is one key in the throttle, however a proxy wrote it.
        let app = app(trusting: ["127.0.0.1"])
        #expect(try await who(app, from: "127.0.0.1", ["X-Forwarded-For": "2001:DB8:0:0::1"]).hasPrefix("2001:db8::1 "))
        #expect(try await who(app, from: "127.0.0.1", ["X-Forwarded-For": "::ffff:203.0.113.7"]).hasPrefix("203.0.113.7 "))
        #expect(try await who(app, from: "::FFFF:198.51.100.9").hasPrefix("198.51.100.9 "))
        // A zone belongs to IPv6 only.
        #expect(try await who(app, from: "127.0.0.1", ["X-Forwarded-For": "fe80::1%eth0"]).hasPrefix("fe80::1 "))
        #expect(try await who(app, from: "127.0.0.1", ["X-Forwarded-For": "203.0.113.7%eth0"]).hasPrefix("127.0.0.1 "))
    }

    @Test func rangesMatchByTheirPrefix() async throws {
        let app = app(trusting: ["192.168.4.0/22"])
        let headers: HttpHeaders = ["X-Forwarded-For": "203.0.113.7"]
        #expect(try await who(app, from: "192.168.7.255", headers).hasPrefix("203.0.113.7 "))
        #expect(try await who(app, from: "192.168.8.0", headers).hasPrefix("192.168.8.0 "))
        #expect(try await who(app, from: "192.168.3.255", headers).hasPrefix("192.168.3.255 "))

        // A prefix off a byte boundary in IPv6: 2001:db8::/29 is 2001:db8:: to 2001:dbf:ffff:...
        let v6 = self.app(trusting: ["2001:db8::/29"])
        #expect(try await who(v6, from: "2001:dbf:ffff::1", headers).hasPrefix("203.0.113.7 "))
        #expect(try await who(v6, from: "2001:dc0::1", headers).hasPrefix("2001:dc0::1 "))
        // /0: every IPv4 address, no IPv6 one.
        let all = self.app(trusting: ["0.0.0.0/0"])
        #expect(try await who(all, from: "198.51.100.9", headers).hasPrefix("203.0.113.7 "))
        #expect(try await who(all, from: "2001:db8::1", headers).hasPrefix("2001:db8::1 "))
        // An IPv4-mapped range is its IPv4 range: ::ffff:10.0.0.0/104 is 10.0.0.0/8.
        let mapped = self.app(trusting: ["::ffff:10.0.0.0/104"])
        #expect(try await who(mapped, from: "10.200.0.1", headers).hasPrefix("203.0.113.7 "))
        #expect(try await who(mapped, from: "11.0.0.1", headers).hasPrefix("11.0.0.1 "))
    }

    @Test func theEnvironmentNamesTheProxies() throws {
        #expect(try Settings.fromProcess(["MICRO_TRUSTED_PROXIES": " 127.0.0.1, 10.0.0.0/8 ,"]).trustedProxies == ["127.0.0.1", "10.0.0.0/8"])
        #expect(try Settings.fromProcess([:]).trustedProxies.isEmpty)
        #expect {
            try Settings.fromProcess(["MICRO_TRUSTED_PROXIES": "127.0.0.1,proxy.internal"])
        } throws: { error in
            (error as? ConfigurationError)?.message.contains("MICRO_TRUSTED_PROXIES has 'proxy.internal'") == true
        }
    }

    @Test func aBadProxyOrOriginStopsStartUp() async throws {
        let app = testApp {
            $0.trustedProxies = ["127.0.0.1", "localhost", "10.0.0.0/33", "10.0.0.0/+8", "10.0.0.0/", "::ffff:10.0.0.0/8", "10.0.0.1%x"]
            $0.trustedOrigins = [
                "tools.example.com", "https://tools.example.com/app", "https://ok.example", "https://:80", "https://a.example:abc",
                "https://a.example:", "https://a.example:70000", "ftp://a.example", "https://[::1]:8443",
            ]
        }
        do {
            let server = try await app.start()
            Issue.record("expected a configuration error")
            _ = await server.shutdown()
        } catch let error as ConfigurationError {
            for entry in [
                "'localhost'", "'10.0.0.0/33'", "'10.0.0.0/+8'", "'10.0.0.0/'", "'::ffff:10.0.0.0/8'", "'10.0.0.1%x'",
                "'tools.example.com'", "'https://tools.example.com/app'", "'https://:80'", "'https://a.example:abc'",
                "'https://a.example:'", "'https://a.example:70000'", "'ftp://a.example'",
            ] {
                #expect(error.message.contains(entry), "\(entry)")
            }
            #expect(!error.message.contains("'127.0.0.1'"))
            #expect(!error.message.contains("'https://ok.example'"))
            #expect(!error.message.contains("'https://[::1]:8443'"))
        }
    }
}
