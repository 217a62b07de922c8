// What an anonymous client can make sign-in keep and compute, in process:
//  1. one million failed sign-ins with distinct names from many addresses, through the
//     throttle alone (digest, begin, finish): its peak memory and the cost per attempt;
//  2. one million sign-outs into the revocation list: its memory and the cost of the
//     per-request check;
//  3. the whole sign-in path (form parsing, throttle, store, bcrypt) for a 1 MB username
//     against a normal unknown name and a wrong password, in CPU time per attempt.
// Run it from the repository's root: `bench/.build/release/SignInBench`.
import Foundation
import Micro
import NIOCore

/// Peak and current resident memory of this process, in MiB (`VmHWM`, `VmRSS`).
func memory() -> (peak: Double, now: Double) {
    let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
    func field(_ name: String) -> Double {
        guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix(name + ":") }) else { return 0 }
        return Double(line.split(separator: " ").dropFirst().first.map(String.init) ?? "0").map { $0 / 1024 } ?? 0
    }
    return (field("VmHWM"), field("VmRSS"))
}

/// This process's CPU time (user plus system) so far.
func cpuTime() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
}

func format(_ value: Double, _ digits: Int = 2) -> String { String(format: "%.\(digits)f", value) }

let attempts = Int(ProcessInfo.processInfo.environment["ATTEMPTS"] ?? "") ?? 1_000_000

// 1. The throttle.
do {
    let before = memory()
    let throttle = SignInThrottle()
    let addresses = 50_000
    let started = cpuTime()
    var refused = 0
    for index in 0..<attempts {
        // A new name each time; addresses in turn, half IPv4, half IPv6 /64s.
        let name = throttle.key(username: "name-\(index)-\(index &* 2_654_435_761)")
        let host = index % addresses
        let address = throttle.key(address: host % 2 == 0 ? "10.\(host >> 16).\((host >> 8) & 255).\(host & 255)" : "2001:db8:\(host):1::1")
        let now = Int64(index / 1000)  // a thousand attempts a second
        switch throttle.begin(username: name, address: address, now: now) {
        case .proceed: throttle.finish(username: name, address: address, outcome: .failure, now: now)
        case .refuse, .wait: refused += 1
        }
    }
    let seconds = cpuTime() - started
    let after = memory()
    let tracked = throttle.trackedCount
    print("| throttle: \(attempts) failed sign-ins, distinct names, \(addresses) addresses | \(format(seconds / Double(attempts) * 1e6, 3)) µs per attempt | peak RSS +\(format(after.peak - before.now)) MiB | tracked \(tracked.usernames) names, \(tracked.addresses) addresses; \(refused) refused |")
}

// 2. The revocation list.
do {
    let before = memory()
    let revocations = MemorySessionRevocations()
    var ids: [String] = []
    ids.reserveCapacity(1000)
    var started = cpuTime()
    for index in 0..<attempts {
        // Random 32-byte ids, as sessions have.
        let id = (0..<4).map { _ in String(UInt64.random(in: 0...UInt64.max), radix: 36) }.joined()
        if index < 1000 { ids.append(id) }
        revocations.revoke(id: id, until: 1_700_000_000 + 8 * 3600, now: 1_700_000_000 + Int64(index / 100))
    }
    let revokeSeconds = cpuTime() - started
    let after = memory()
    started = cpuTime()
    var found = 0
    for round in 0..<1000 {
        for id in ids where revocations.isRevoked(id: id + (round % 2 == 0 ? "" : "x"), created: 1_700_000_000) { found += 1 }
    }
    let checkSeconds = cpuTime() - started
    print("| revocations: \(attempts) sign-outs | \(format(revokeSeconds / Double(attempts) * 1e6, 3)) µs per sign-out, \(format(checkSeconds / 1e6 * 1e9, 1)) ns per check (\(found) found) | RSS +\(format(after.now - before.now)) MiB, \(format((after.now - before.now) * 1024 * 1024 / Double(revocations.count), 1)) bytes per entry | \(revocations.count) kept |")
}

// 3. The sign-in path.
do {
    var settings = Settings()
    settings.environment = .production
    settings.accessLog = false
    settings.sessions.secret = "bench-" + String(repeating: "k3y", count: 12)
    let app = App(settings: settings)
    var authentication = Authentication(users: try YamlUserStore(file: "bench/credentials.yml"))
    authentication.throttleLimits.failuresPerUsername = .max
    authentication.throttleLimits.failuresPerAddress = .max
    app.use(authentication)
    // The bench measures the path after the CSRF check, which costs the same for all three.
    app.skipCsrf("/signin")

    /// CPU milliseconds per attempt, and the status the attempts got (a refused sign-in's 303,
    /// or a 413 for a form over the fields' memory limit).
    func cost(username: String, password: String, count: Int) async throws -> (ms: Double, status: UInt) {
        let form = "username=" + username + "&password=" + password
        let headers: HttpHeaders = ["Host": "localhost", "Content-Type": "application/x-www-form-urlencoded"]
        var index = 0
        func once() async throws -> UInt {
            index += 1
            let response = try await app.respond(
                method: .POST, uri: "/signin", headers: headers, body: ByteBuffer(string: form),
                remoteAddress: "10.9.\((index >> 8) & 255).\(index & 255)")
            guard response.status == .seeOther || response.status == .payloadTooLarge else {
                fatalError("sign-in answered \(response.status.code)")
            }
            return response.status.code
        }
        let status = try await once()
        // bcrypt runs on the hasher's threads: the whole process's CPU time counts it.
        let started = cpuTime()
        for _ in 0..<count { _ = try await once() }
        return ((cpuTime() - started) / Double(count) * 1e3, status)
    }
    let count = Int(ProcessInfo.processInfo.environment["SIGNINS"] ?? "") ?? 20
    let normal = try await cost(username: "nobody", password: "wrong", count: count)
    let wrong = try await cost(username: "bench1", password: "wrong", count: count)
    var cells: [String] = []
    // Sent as raw UTF-8, as a body may be: 500,000 two-byte "İ"s make 1 MB; 240,000 stay under
    // the 500,000 bytes a form's fields may take, so the sign-in itself reads them.
    for (label, name) in [
        ("1 MB of \"İ\"", String(repeating: "İ", count: 500_000)), ("1 MB of \"a\"", String(repeating: "a", count: 1_000_000)),
        ("480 KB of \"İ\"", String(repeating: "İ", count: 240_000)),
    ] {
        let long = try await cost(username: name, password: "wrong", count: count)
        cells.append("\(label): \(format(long.ms)) ms, \(long.status) (\(format(long.ms / normal.ms))x)")
    }
    print("| sign-in path, CPU per refused attempt | unknown name \(format(normal.ms)) ms, wrong password \(format(wrong.ms)) ms | \(cells.joined(separator: "; ")) | |")
}
