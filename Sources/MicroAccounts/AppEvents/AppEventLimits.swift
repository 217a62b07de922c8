/// The bounds of an app event's fields, checked when it is recorded: a longer one is the app's
/// mistake, said as an ``AppEventError``, never a record cut short without a word. Lengths are
/// counted in Unicode scalars: a letter may carry any number of combining marks, and a bound in
/// letters would let such a text through at any size.
public enum AppEventLimits {
    /// The most characters of a kind: letters, digits, `_`, `-` and `.`.
    public static let kindLength = 64
    /// The most characters of a subject.
    public static let subjectLength = 200
    /// The most characters of a detail.
    public static let detailLength = 2000
    /// How many events a page of the audit shows.
    public static let pageSize = 100
    /// The furthest page the audit goes to.
    public static let pageLimit = 10_000
}
