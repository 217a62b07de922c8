/// A link to another page of the same list: the request's path (as the browser sees it) with
/// its query parameters other than the paging's own, then the new page's.
struct PageLink: Sendable {
    /// The path, under the app's mount path.
    let path: String
    /// The query parameters that each page keeps (a list's filters), in the request's order.
    let kept: [(name: String, value: String)]

    /// The parameters that choose a page, which a link replaces.
    static let pagingNames: Set<String> = ["page", "after", "before"]

    func to(_ paging: [(name: String, value: String)]) -> String {
        let parts = (paging + kept).map { PercentEncoding.encode($0.name) + "=" + PercentEncoding.encode($0.value) }
        return parts.isEmpty ? path : path + "?" + parts.joined(separator: "&")
    }
}
