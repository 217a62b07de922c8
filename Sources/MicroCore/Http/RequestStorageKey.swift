/// A key of ``RequestStorage``: its type names the slot, and `Value` is what the slot holds.
///
/// ```swift
/// enum CurrentTeam: RequestStorageKey { typealias Value = Team }
/// app.before("/teams/:team/*") { request in request.storage[CurrentTeam.self] = try team(request) }
/// app.get("/teams/:team/notes") { request in request.storage[CurrentTeam.self]!.notes }
/// ```
public protocol RequestStorageKey {
    /// The type of the value kept under this key.
    associatedtype Value: Sendable
}
