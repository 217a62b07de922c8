import Foundation

/// The markup of HTML pages as a real tokenizer sees it: Python's standard `html.parser`,
/// run with `python3` from the PATH.
///
/// Each page becomes its sequence of start tags, each written as the tag's name followed by
/// its attributes' names (`input id name value`), plus a marker for each comment, declaration
/// and processing instruction. Two pages whose sequences are equal have the same elements
/// and attributes; values and text may differ.
enum HtmlMarkup {
    /// The markup of each page, in order; one `python3` process for all of them.
    static func of(_ pages: [String]) throws -> [[String]] {
        // The pages go in a file, not down a pipe: a pipe to a python3 that is missing (or
        // gone) would stop the tests with SIGPIPE instead of an error saying why.
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("micro-pages-\(UUID().uuidString).json")
        try JSONEncoder().encode(pages).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", script, file.path]
        let output = Pipe()
        let errors = Pipe()
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = output
        process.standardError = errors
        do {
            try process.run()
        } catch {
            throw HtmlMarkupError("cannot start python3 through /usr/bin/env (\(error)); these tests need python3 on the PATH")
        }
        // Standard error is read on its own, so that neither pipe fills while the other is read.
        let complaint = Collected()
        errors.fileHandleForReading.readabilityHandler = { handle in complaint.append(handle.availableData) }
        let answer = try output.fileHandleForReading.readToEnd() ?? Data()
        process.waitUntilExit()
        errors.fileHandleForReading.readabilityHandler = nil
        let message = complaint.text
        if process.terminationStatus == 127 {
            throw HtmlMarkupError("python3 is not on the PATH: these tests parse pages with its html.parser and cannot run without it (\(message))")
        }
        guard process.terminationStatus == 0 else {
            throw HtmlMarkupError("python3's html.parser failed (status \(process.terminationStatus)): \(message)")
        }
        let markup = try JSONDecoder().decode([[String]].self, from: answer)
        guard markup.count == pages.count else {
            throw HtmlMarkupError("python3 gave \(markup.count) answers for \(pages.count) pages")
        }
        return markup
    }

    /// Reads a JSON list of pages from the file named by its argument, writes a JSON list of
    /// their markup.
    static let script = #"""
        import json, sys
        from html.parser import HTMLParser

        class Markup(HTMLParser):
            def __init__(self):
                super().__init__(convert_charrefs=True)
                self.events = []

            def handle_starttag(self, tag, attrs):
                self.events.append(" ".join([tag] + [name for name, _ in attrs]))

            def handle_comment(self, data):
                self.events.append("<!--")

            def handle_decl(self, decl):
                self.events.append("<!" + decl)

            def unknown_decl(self, data):
                self.events.append("<![")

            def handle_pi(self, data):
                self.events.append("<?")

        result = []
        with open(sys.argv[1], encoding="utf-8") as pages:
            pages = json.load(pages)
        for page in pages:
            parser = Markup()
            parser.feed(page)
            parser.close()
            result.append(parser.events)
        json.dump(result, sys.stdout)
        """#
}

/// Why the pages could not be parsed.
struct HtmlMarkupError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
