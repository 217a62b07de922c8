import Micro

/// A note as the form or a script sends it, with the checks it must pass.
struct NoteDraft: Decodable, Validatable {
    var title: String
    var body: String?
    var severity: Int

    func validate(into errors: inout FieldErrors) {
        errors.check("title", title, .notBlank, .length(max: 120))
        errors.check("body", body, .length(max: 5_000))
        errors.check("severity", severity, .range(1...5))
    }
}
