import Mustache

/// How Micro's templates escape `{{value}}`: with ``Html/escape(_:)``, byte by byte.
///
/// swift-mustache's own HTML escaping compares Characters, so `"` followed by a combining
/// mark, or `<` after a prepend character such as U+0600, is one Character that is not `"` or
/// `<` and goes out unescaped. The engine starts every template and partial in its own HTML
/// content type, and a template switches with the `{{% CONTENT_TYPE: NAME}}` pragma: Micro
/// registers this content type under ``name`` and starts each template it loads with that
/// pragma (see ``pragma``). It also takes the name `HTML`, so that a template which switches
/// back to HTML after `TEXT` gets this escaping too.
struct HtmlContentType: MustacheContentType {
    /// The name in the `CONTENT_TYPE` pragma.
    static let name = "MICRO_HTML"

    /// The line put before each template's text. It stands alone on its line, so the engine
    /// removes it with its line break: the template renders as written, and an error in it is
    /// one line further down than in the file (``Views`` reports the file's line).
    static let pragma = "{{% CONTENT_TYPE: \(name)}}\n"

    func escapeText(_ text: String) -> String {
        Html.escape(text)
    }

    /// Registers the content type, once: the registry is global to the process and a template
    /// naming it does not parse until it is there. A static `let` runs its initializer once,
    /// whichever thread reads it first.
    static let registered: Void = {
        MustacheContentTypes.register(HtmlContentType(), named: name)
        MustacheContentTypes.register(HtmlContentType(), named: "HTML")
    }()
}
