/// The request's parameters: path parameters, the form body and the query string, merged.
///
/// As in Sinatra, a path parameter wins over a form field, and a form field wins over a
/// query parameter of the same name. Repeated keys (`a=1&a=2`) are all kept:
/// `params["a"]` is the last one, `params.all("a")` every one.
public struct Params: Sendable {
    /// Parameters captured from the route's pattern (`:name`), in order.
    public internal(set) var path: [(name: String, value: String)] = []
    /// The pieces matched by the pattern's splats (`*`), in order.
    public internal(set) var splat: [String] = []
    /// Fields of an `application/x-www-form-urlencoded` or `multipart/form-data` body.
    public internal(set) var form: [(name: String, value: String)] = []
    /// Parameters of the query string.
    public internal(set) var query: [(name: String, value: String)] = []
    /// Files of a `multipart/form-data` body.
    public internal(set) var files: [UploadedFile] = []

    /// The value of `name`: the path parameter, else the last form field, else the last query
    /// parameter of that name.
    public subscript(name: String) -> String? {
        if let value = path.last(where: { $0.name == name }) { return value.value }
        if let value = form.last(where: { $0.name == name }) { return value.value }
        return query.last(where: { $0.name == name })?.value
    }

    /// Every value given for `name`, from the source that wins (path, then form, then query),
    /// in the order they were sent: `a=1&a=2` gives `["1", "2"]`.
    public func all(_ name: String) -> [String] {
        for source in [path, form, query] {
            let values = source.filter { $0.name == name }.map(\.value)
            if !values.isEmpty { return values }
        }
        return []
    }

    /// The uploaded file of the form field `name`, if any.
    public func file(_ name: String) -> UploadedFile? {
        files.last { $0.fieldName == name }
    }
}
