/// Where a keyed page starts: after an item (the next page) or before one (the previous).
public enum PagingCursor: Sendable, Equatable {
    /// The items after this key, in the list's order.
    case after(String)
    /// The items before this key, in the list's order.
    case before(String)

    /// The key, as the client sent it.
    public var key: String {
        switch self {
        case .after(let key), .before(let key): key
        }
    }
}
