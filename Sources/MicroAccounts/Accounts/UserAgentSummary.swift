import MicroAuth
import MicroCore

/// A `User-Agent` in words for a person: `Firefox 128 on Linux`, `Chrome 131 on Android`,
/// `Safari 17 on iPhone`, `curl 8.5`; `Unknown browser` for anything else. Only the browser's
/// major version and the system are kept: enough to recognise a device, nothing to track it by.
public enum UserAgentSummary {
    /// The summary of `userAgent` (nil or empty: `Unknown browser`).
    public static func describe(_ userAgent: String?) -> String {
        guard let agent = userAgent, !agent.isEmpty else { return unknown }
        let text = Substring(agent.prefix(512))
        if let version = version(after: "curl/", in: text, parts: 2), text.hasPrefix("curl/") { return "curl \(version)" }
        guard let browser = browser(in: text) else { return unknown }
        guard let system = system(in: text) else { return browser }
        return "\(browser) on \(system)"
    }

    /// What an empty or unrecognised `User-Agent` reads as.
    public static let unknown = "Unknown browser"

    /// The browser and its major version. The order matters: Edge and Opera say `Chrome/` too,
    /// Chrome says `Safari/`, and iOS browsers name themselves apart (`CriOS`, `FxiOS`).
    private static func browser(in text: Substring) -> String? {
        let candidates: [(marker: String, name: String)] = [
            ("Edg/", "Edge"), ("EdgA/", "Edge"), ("EdgiOS/", "Edge"), ("OPR/", "Opera"), ("SamsungBrowser/", "Samsung Internet"),
            ("Firefox/", "Firefox"), ("FxiOS/", "Firefox"), ("CriOS/", "Chrome"), ("Chrome/", "Chrome"), ("Chromium/", "Chromium"),
        ]
        for (marker, name) in candidates {
            if let version = version(after: marker, in: text, parts: 1) { return "\(name) \(version)" }
        }
        if text.contains("Safari/"), let version = version(after: "Version/", in: text, parts: 1) { return "Safari \(version)" }
        return nil
    }

    private static func system(in text: Substring) -> String? {
        let systems: [(marker: String, name: String)] = [
            ("iPhone", "iPhone"), ("iPad", "iPad"), ("Android", "Android"), ("CrOS", "ChromeOS"), ("Windows", "Windows"),
            ("Macintosh", "macOS"), ("Linux", "Linux"),
        ]
        return systems.first { text.contains($0.marker) }?.name
    }

    /// The first `parts` dot-separated numbers after `marker` (`131`, `8.5`); nil when there is none.
    private static func version(after marker: String, in text: Substring, parts: Int) -> String? {
        guard let range = text.range(of: marker) else { return nil }
        let digits = text[range.upperBound...].prefix { $0.isASCII && ($0.isNumber || $0 == ".") }
        let numbers = digits.split(separator: ".", omittingEmptySubsequences: false).prefix(parts)
        guard let first = numbers.first, !first.isEmpty, numbers.allSatisfy({ !$0.isEmpty && $0.count <= 6 }) else { return nil }
        return numbers.joined(separator: ".")
    }
}
