import Foundation

/// Development's and test's check that a page names only values it has (``TopLevelTags``).
extension Views {
    /// Throws the error naming the template, line and name of the first lookup outside
    /// sections, in `name` or a partial it shows there, that `context` has no value for.
    func check(_ name: String, _ context: TemplateContext, _ tags: [String: TopLevelTags]) throws {
        var seen: Set<String> = []
        var pending = [name]
        while let next = pending.popLast() {
            guard seen.insert(next).inserted, let found = tags[next] else { continue }
            for variable in found.variables where !context.knows(variable.path) {
                if variable.path[0] == "form" {
                    throw ViewError(
                        "\(file(of: next)):\(variable.line): {{\(variable.path.joined(separator: "."))}} names no part of the form:"
                            + " it has \(FormError.templateKeys.sorted().joined(separator: ", ")) (`{{form.values.title}}`).")
                }
                let given = context.givenNames
                throw ViewError(
                    "\(file(of: next)):\(variable.line): {{\(variable.path.joined(separator: "."))}} names a value this page was not given"
                        + " (the route gave \(given.isEmpty ? "none" : given.joined(separator: ", "))). Give it, or show it inside"
                        + " {{#\(variable.path[0])}}…{{/\(variable.path[0])}} where it may be missing.")
            }
            pending += found.partials
        }
    }

    /// Where the template `name` comes from, for a message.
    private func file(of name: String) -> String {
        let path = folder + "/" + name + ".mustache"
        return !folder.isEmpty && FileManager.default.fileExists(atPath: path) ? path : "the built-in template \(name)"
    }

    /// The lookups of every template, the folder's over the built-in ones of the same name.
    static func tags(_ folder: String, fallbacks: [String: String]) -> [String: TopLevelTags] {
        var tags = fallbacks.mapValues(TopLevelTags.init)
        let realFolder = ViewLinks.realPath(folder) ?? folder
        for path in templatePaths(in: realFolder) {
            let file = folder + "/" + path
            guard ViewLinks.allows(file, realFolder: realFolder), let text = try? String(contentsOfFile: file, encoding: .utf8) else { continue }
            tags[String(path.dropLast(".mustache".count))] = TopLevelTags(text)
        }
        return tags
    }
}
