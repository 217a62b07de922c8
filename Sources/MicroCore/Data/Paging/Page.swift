/// One page of a list, and the links to the pages beside it (made by a ``Paging``).
///
/// In a template, with `"page": page.links`:
///
/// ```mustache
/// {{#page.previous}}<a rel="prev" href="{{page.previous}}">Newer</a>{{/page.previous}}
/// {{#page.next}}<a rel="next" href="{{page.next}}">Older</a>{{/page.next}}
/// ```
public struct Page<Item> {
    /// The page's items, at most the paging's size.
    public let items: [Item]
    /// The page number, for a numbered page.
    public let number: Int?
    /// The link to the next page, when there is one: the request's path and its other query
    /// parameters, as the browser sees them (under the app's mount path).
    public let next: String?
    /// The link to the previous page, when there is one.
    public let previous: String?

    /// The links for a template: `next`, `previous` and `number`, each left out when there is
    /// none (a Mustache section shows for a key that is there).
    public var links: [String: String] {
        var links: [String: String] = [:]
        if let next { links["next"] = next }
        if let previous { links["previous"] = previous }
        if let number { links["number"] = String(number) }
        return links
    }

    /// The same page of other items: each of these transformed (a row made the app's type).
    public func map<Other>(_ transform: (Item) throws -> Other) rethrows -> Page<Other> {
        Page<Other>(items: try items.map(transform), number: number, next: next, previous: previous)
    }
}

extension Page: Sendable where Item: Sendable {}
