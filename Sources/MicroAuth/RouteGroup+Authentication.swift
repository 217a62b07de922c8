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

    /// Every request of the group needs a signed-in user whose credential has `scope`
    /// (``Request/requireScope(_:)``): a session and HTTP Basic pass, an API token only with
    /// the scope. A name outside ``ScopeName``'s rule stops the app from starting.
    ///
    /// ```swift
    /// app.group("/api/deploys", answers: .json) { deploys in
    ///     deploys.requireScope("deploy")
    ///     deploys.post("/") { request in ... }
    /// }
    /// ```
    public func requireScope(_ scope: String, file: String = #fileID, line: UInt = #line) {
        if !ScopeName.isValid(scope) {
            app.addProblem("\(file):\(line): the scope name '\(scope.prefix(64))' breaks the rule: 1 to \(ScopeName.maximumLength) lowercase letters, digits, '-', '_' or ':', beginning with a letter.")
        }
        before(file: file, line: line) { request in try request.requireScope(scope) }
    }
}
