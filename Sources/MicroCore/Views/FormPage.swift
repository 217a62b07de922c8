/// Where a route's refused form is shown again, as ``Request/formPage(_:_:formValues:layout:)``
/// or ``Request/formPage(at:)`` named it.
enum FormPage {
    /// The template, rendered with the route's values (made only when a refusal shows it), the
    /// first values of the fields not sent, and the layout.
    case template(String, values: () throws -> [String: Any], formValues: [String: Any], layout: String?)
    /// Another route's page, at this path: the refusal is carried there across a redirect.
    case path(String)
}
