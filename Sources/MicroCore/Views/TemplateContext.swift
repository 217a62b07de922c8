import Mustache

/// What a plugin adds to every template under a name: made from the request when a template
/// first looks the name up; nil for none.
public typealias TemplateValue = @Sendable (Request) -> (any Sendable)?

/// What the templates of one page see, looked up by name as they ask (swift-mustache's
/// `MustacheParent`): the page for the layout's `{{{yield}}}`, the route's values, then the
/// values plugins add, then Micro's own (`flash`, `flashMessages`, `csrfToken`, `csrfField`,
/// `path`, `basePath`, and `form`: the route's first values, or a refused form a redirect
/// brought back). A value no template shows is never made, and nothing is merged into a dictionary
/// of `Any` per request; the page and its layout share one context.
final class TemplateContext: MustacheParent {
    private let request: Request
    private let values: [String: Any]
    private let flash: Flash
    /// The first values of the form's fields, as the route gave them.
    private let formValues: [String: Any]
    /// The refused form a redirect brought back to this page.
    private let carriedForm: FormError?
    /// The rendered page, once it is: the layout shows it at `{{{yield}}}`.
    var page: String?
    /// The plugins' and Micro's values made so far, by name (nil: there is none).
    private var made: [String: Any?] = [:]

    init(request: Request, values: [String: Any], formValues: [String: Any] = [:]) {
        self.request = request
        self.values = values
        self.formValues = formValues
        // Rendering a page takes the previous request's messages out of the session, whether
        // its templates show them or not: they are shown once, on the page after a redirect.
        // So does a refused form brought back.
        flash = request.flash
        carriedForm = request.carriedForm
    }

    func child(named name: String) -> Any? {
        if let page, name == "yield" { return page }
        // A nil the route put in its values (`older as Any`) is no value: its section is not
        // shown. Only here, at the top: a nil inside a dictionary of the values is swift-mustache's
        // to read, and shows its section; leave such a key out instead.
        if let value = values[name] { return (value as? any OptionalValue)?.isNone == true ? nil : value }
        if let value = made[name] { return value }
        let value = automatic(name)
        made.updateValue(value, forKey: name)
        return value
    }

    /// The names the route gave, for a message about one it did not.
    var givenNames: [String] { values.keys.sorted() }

    /// Whether `path` (`title`, `user.name`) names a value this page has, even an empty one:
    /// a route's key (nil included), a plugin's name (signed out, `user` is one with no value),
    /// Micro's own; then each further part a property of a struct or class. A dictionary's
    /// missing key counts as known: a dictionary (`flash`, a form's `errors`) holds only the
    /// keys that have something to say. So does what cannot be looked into (a list, a lambda).
    func knows(_ path: [String]) -> Bool {
        guard let first = path.first else { return true }
        // A route's key and a plugin's name are known even when they hold nil; Micro's own
        // values always hold one, so asking for the value is the check.
        var value = child(named: first)
        guard first == "yield" || values.keys.contains(first) || request.services.templateValues[first] != nil || value != nil else { return false }
        // `form` has Micro's own shape, whoever made it (the route's `render(form:)` too): a
        // misspelt part of it (`form.valeus.title`) is a mistake, not a form's missing field.
        if first == "form", path.count > 1, !FormError.templateKeys.contains(path[1]), hasMicrosForm { return false }
        for part in path.dropFirst() {
            guard let current = value.flatMap(unwrappingOptionals) else { return true }
            if let parent = current as? any MustacheParent {
                value = parent.child(named: part)
                guard value != nil else { return true }
            } else {
                let mirror = Mirror(reflecting: current)
                guard mirror.displayStyle == .struct || mirror.displayStyle == .class else { return true }
                guard let child = mirror.children.first(where: { $0.label == part }) else { return false }
                value = child.value
            }
        }
        return true
    }

    /// Whether `form` is Micro's (``FormError/templateValue`` or the empty one), not a value of
    /// the app's own under that name.
    private var hasMicrosForm: Bool {
        guard let given = values["form"] else { return true }
        return (given as? [String: Any]).map { $0.keys.allSatisfy(FormError.templateKeys.contains) } ?? false
    }

    private func automatic(_ name: String) -> Any? {
        if let plugin = request.services.templateValues[name], let value = plugin(request) { return value }
        switch name {
        case "flash":
            return flash.visible
        case "flashMessages":
            return flash.visible.sorted { $0.key < $1.key }.map { ["kind": $0.key, "message": $0.value] }
        case "csrfToken":
            return LazyCsrfValue(request: request, asField: false)
        case "csrfField":
            return LazyCsrfValue(request: request, asField: true)
        case "path":
            return request.path
        case "basePath":
            return request.basePath
        case "form":
            if let carriedForm { return carriedForm.templateValue(first: formValues) }
            // A form's first visit: the route's first values, no messages (a refused form's
            // page is given its own), so that `{{form.values.title}}` names a value on every visit.
            let values = formValues.isEmpty ? [:] : FormError.formValues(first: formValues, sent: request.params.form)
            return ["values": values, "errors": [String: Any]()]
        default:
            return nil
        }
    }
}
