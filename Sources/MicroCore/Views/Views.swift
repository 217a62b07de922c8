import Foundation
import Mustache

/// The templates of the views folder (swift-mustache), rendered inside a layout.
///
/// Production loads them once at start-up: a template that does not parse stops start-up with
/// its file and line. Development reloads them whenever a file in the folder changes.
package final class Views: Sendable {
    private struct Loaded {
        var library: MustacheLibrary
        var stamp: [String: Date]
        var problem: ConfigurationError?
        /// Each template's lookups outside sections, read when templates are checked.
        var tags: [String: TopLevelTags] = [:]
    }

    let folder: String
    /// Templates that plugins bring (the account pages), by name, used where the folder has
    /// none of that name: an app restyles a page by writing its own.
    private let fallbacks: [String: String]
    private let reloads: Bool
    /// Whether a page naming a value it was not given is an error (``TopLevelTags``):
    /// in development and test, where the mistake is made; production renders as ever.
    private let checksNames: Bool
    private let loaded: Locked<Loaded>

    init(folder: String, environment: Environment, fallbacks: [String: String] = [:]) throws(ConfigurationError) {
        self.folder = folder
        self.fallbacks = fallbacks
        reloads = environment == .development
        checksNames = environment != .production
        let stamp = Self.stamp(of: folder)
        do {
            loaded = Locked(Loaded(
                library: try Self.load(folder, fallbacks: fallbacks), stamp: stamp,
                tags: checksNames ? Self.tags(folder, fallbacks: fallbacks) : [:]))
        } catch {
            // Development shows a broken template on the page that uses it; elsewhere it
            // stops start-up.
            guard reloads else { throw error }
            loaded = Locked(Loaded(library: MustacheLibrary(), stamp: stamp, problem: error))
        }
    }

    /// Renders `name` with `context`, inside `layout` when there is one: the layout shows the
    /// page where it says `{{{yield}}}`. The default layout (`layout`) is optional; a layout
    /// named explicitly must exist.
    func render(_ name: String, context: TemplateContext, layout: String?, layoutRequired: Bool) throws -> String {
        let (library, tags) = try current()
        if checksNames, library.getTemplate(named: name) != nil, !layoutRequired || layout.map({ library.getTemplate(named: $0) != nil }) ?? true {
            try check(name, context, tags)
        }
        guard library.getTemplate(named: name) != nil, let page = library.render(context, withTemplate: name) else {
            if folder.isEmpty { throw ViewError("The template \(name) cannot be rendered: this app has no views folder (settings.views is nil).") }
            throw ViewError(ViewLinks.refusal(of: name, in: folder) ?? "The template \(folder)/\(name).mustache does not exist.")
        }
        guard let layout else { return page }
        guard library.getTemplate(named: layout) != nil else {
            if layoutRequired { throw ViewError("The layout \(folder)/\(layout).mustache does not exist.") }
            return page
        }
        context.page = page
        if checksNames { try check(layout, context, tags) }
        return library.render(context, withTemplate: layout) ?? page
    }

    private func currentLibrary() throws -> MustacheLibrary {
        try current().library
    }

    private func current() throws -> (library: MustacheLibrary, tags: [String: TopLevelTags]) {
        try loaded.withLock { loaded in
            if reloads {
                let stamp = Self.stamp(of: folder)
                if stamp != loaded.stamp {
                    loaded.stamp = stamp
                    do throws(ConfigurationError) {
                        loaded.library = try Self.load(folder, fallbacks: fallbacks)
                        loaded.tags = checksNames ? Self.tags(folder, fallbacks: fallbacks) : [:]
                        loaded.problem = nil
                    } catch {
                        loaded.problem = error
                    }
                }
            }
            if let problem = loaded.problem { throw ViewError(problem.message) }
            return (loaded.library, loaded.tags)
        }
    }

    private static func load(_ folder: String, fallbacks: [String: String]) throws(ConfigurationError) -> MustacheLibrary {
        var library = MustacheLibrary()
        for (name, text) in fallbacks.sorted(by: { $0.key < $1.key }) {
            do {
                try register(text, named: name, in: &library)
            } catch {
                throw ConfigurationError("the built-in template \(name): \(error)")
            }
        }
        let realFolder = ViewLinks.realPath(folder) ?? folder
        for path in templatePaths(in: realFolder) {
            let file = folder + "/" + path
            // A link out of the folder is refused (ViewLinks); rendering it says so.
            guard ViewLinks.allows(file, realFolder: realFolder) else { continue }
            let name = String(path.dropLast(".mustache".count))
            guard let text = try? String(contentsOfFile: file, encoding: .utf8) else {
                throw ConfigurationError("\(file): cannot be read as UTF-8 text.")
            }
            do {
                try register(text, named: name, in: &library)
            } catch let error as MustacheTemplate.ParserError {
                let context = error.context
                // The pragma is a line of its own before the file's first.
                let line = max(1, context.lineNumber - 1)
                throw ConfigurationError("\(file):\(line):\(context.columnNumber): template error: \(error.error)\n    \(context.line)")
            } catch {
                throw ConfigurationError("\(file): template error: \(error)")
            }
        }
        return library
    }

    /// Adds the template `text` to `library`, starting in ``HtmlContentType``: every template
    /// escapes by bytes (a partial too, as each is a template of its own). A parse error is one
    /// line further down than in `text` (the pragma's line).
    static func register(_ text: String, named name: String, in library: inout MustacheLibrary) throws {
        HtmlContentType.registered
        try library.register(HtmlContentType.pragma + text, named: name)
    }

    /// Template paths relative to the folder (`signin.mustache`, `tools/dates.mustache`). The
    /// folder's own path is given resolved: the enumeration enters no link, its root included.
    static func templatePaths(in folder: String) -> [String] {
        guard !folder.isEmpty, let enumerator = FileManager.default.enumerator(atPath: folder) else { return [] }
        return enumerator.compactMap { $0 as? String }.filter { $0.hasSuffix(".mustache") }.sorted()
    }

    /// Each template's modification date: a change, addition or removal changes the stamp.
    private static func stamp(of folder: String) -> [String: Date] {
        var stamp: [String: Date] = [:]
        for path in templatePaths(in: ViewLinks.realPath(folder) ?? folder) {
            let attributes = try? FileManager.default.attributesOfItem(atPath: folder + "/" + path)
            stamp[path] = attributes?[.modificationDate] as? Date ?? .distantPast
        }
        return stamp
    }
}

extension Views {
    /// Whether the folder has the template `name`.
    package func hasTemplate(_ name: String) -> Bool {
        (try? currentLibrary())?.getTemplate(named: name) != nil
    }
}
