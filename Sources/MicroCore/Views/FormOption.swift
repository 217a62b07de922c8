/// One option of a select, radio buttons or checkboxes, for a template, with whether it is
/// chosen (`request.options(name, choices, chosen:)` makes them):
///
/// ```html
/// <select name="status">
///   {{#statuses}}<option value="{{value}}"{{#chosen}} selected{{/chosen}}>{{label}}</option>{{/statuses}}
/// </select>
/// ```
public struct FormOption: Sendable, Equatable {
    /// The value the form sends.
    public var value: String
    /// What the person reads.
    public var label: String
    /// Whether it is chosen (selected, checked).
    public var chosen: Bool

    /// An option of `value`, read as `label`.
    public init(value: String, label: String, chosen: Bool = false) {
        self.value = value
        self.label = label
        self.chosen = chosen
    }
}
