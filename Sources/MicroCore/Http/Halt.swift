import NIOHTTP1

/// Thrown by `halt`, `redirect` and friends: stops the request and answers with `response`.
struct Halt: Error {
    var response: Response
}
