extension App {
    /// Routes under `prefix`, with filters, around blocks and error handlers of their own (see
    /// ``RouteGroup``). `define` adds them; the group is also returned, to add more later.
    ///
    /// ```swift
    /// app.group("/admin") { admin in
    ///     admin.authorize(role: "admin")
    ///     admin.get("/users") { request in "the users" }
    /// }
    /// ```
    @discardableResult
    public func group(
        _ prefix: String, answers: RouteGroup.Answers = .pages, file: String = #fileID, line: UInt = #line,
        _ define: (RouteGroup) -> Void = { _ in }
    ) -> RouteGroup {
        let group = RouteGroup(app: self, prefix: prefix, answers: answers)
        if let problem = PathScope.problem(with: prefix) {
            addProblem("\(SourceSite(file: file, line: line)): \(problem)")
        } else {
            update { $0.groupAnswers.append((group.scope, answers)) }
        }
        define(group)
        return group
    }
}
