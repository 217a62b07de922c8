import MicroCore

extension RouteGroup {
    /// Every request of the group needs a signed-in user (``Request/authenticate()``).
    public func authenticate(file: String = #fileID, line: UInt = #line) {
        before(file: file, line: line) { request in try request.authenticate() }
    }

    /// Every request of the group needs a signed-in user with `role`
    /// (``Request/authorize(role:)``).
    public func authorize(role: String, file: String = #fileID, line: UInt = #line) {
        before(file: file, line: line) { request in try request.authorize(role: role) }
    }

    /// Every request of the group needs a signed-in user with at least one of `roles`
    /// (``Request/authorize(anyOf:)-([String])``).
    public func authorize(anyOf roles: String..., file: String = #fileID, line: UInt = #line) {
        authorize(anyOf: roles, file: file, line: line)
    }

    /// ``authorize(anyOf:file:line:)-(String...,_,_)`` with the roles in an array.
    public func authorize(anyOf roles: [String], file: String = #fileID, line: UInt = #line) {
        before(file: file, line: line) { request in try request.authorize(anyOf: roles) }
    }
}
