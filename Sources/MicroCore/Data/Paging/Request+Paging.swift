extension Request {
    /// The page of a list this request asks for: `?page=N`, or a cursor, `?after=KEY` or
    /// `?before=KEY`; the first page without them. Links to other pages keep the request's
    /// other query parameters (a list's filters).
    ///
    /// A page number below 1 is the first page and one beyond `maxPage` is `maxPage` (past the
    /// end, a page is simply empty); a page that is not a number, or a cursor longer than
    /// ``PagingLimits/cursorLength``, is a `400`.
    public func paging(size: Int = 25, maxPage: Int = PagingLimits.maxPage) throws(HttpError) -> Paging {
        precondition(size > 0 && maxPage > 0, "A page holds at least one item, and there is at least one page.")
        let query = params.query
        var number = 1
        if let typed = query.last(where: { $0.name == "page" })?.value {
            let digits = typed.drop(while: { $0 == "-" || $0 == "+" })
            guard !digits.isEmpty, digits.allSatisfy({ $0.isASCII && $0.isNumber }) else {
                throw HttpError(.badRequest, "The page must be a whole number.")
            }
            // A long number is beyond any page: no arithmetic on it.
            number = typed.hasPrefix("-") ? 1 : digits.count > 9 ? maxPage : min(maxPage, max(1, Int(digits) ?? 1))
        }
        var cursor: PagingCursor?
        for name in ["after", "before"] {
            guard let key = query.last(where: { $0.name == name })?.value else { continue }
            guard cursor == nil else { throw HttpError(.badRequest, "A page is after a key or before one, not both.") }
            guard !key.isEmpty, key.unicodeScalars.count <= PagingLimits.cursorLength else {
                throw HttpError(.badRequest, "The page's \(name) key must be 1 to \(PagingLimits.cursorLength) characters.")
            }
            cursor = name == "after" ? .after(key) : .before(key)
        }
        let kept = query.filter { !PageLink.pagingNames.contains($0.name) }
        return Paging(size: size, number: cursor == nil ? number : 1, cursor: cursor, maxPage: maxPage, link: PageLink(path: url(path), kept: kept))
    }
}
