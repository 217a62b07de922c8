/// An `Optional` seen through `Any`, to tell a nil from a value.
protocol OptionalValue {
    var isNone: Bool { get }
    var wrapped: Any? { get }
}

extension Optional: OptionalValue {
    var isNone: Bool { self == nil }
    var wrapped: Any? { self.map { $0 as Any } }
}

/// `value` without the `Optional`s around it; nil for none.
func unwrappingOptionals(_ value: Any) -> Any? {
    guard let optional = value as? any OptionalValue else { return value }
    return optional.wrapped.flatMap(unwrappingOptionals)
}
