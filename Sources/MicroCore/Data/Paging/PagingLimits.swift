/// The bounds of what a client may ask of a paged list.
public enum PagingLimits {
    /// The highest page number a request reaches (a higher one is this one): an `OFFSET` the
    /// database walks is bounded too.
    public static let maxPage = 10_000
    /// The longest cursor (`after`, `before`) a request may send, in Unicode scalars.
    public static let cursorLength = 200
}
