extension App {
    /// Every step the app takes, in the order a request meets them: the start-up checks and
    /// preparations, then each request's session and credential checks, the CSRF check, the
    /// `around` blocks, `before` filters, routes and `after` filters, then the error handlers
    /// and the values templates can name. Each names the file and line that added it, so that
    /// what a plugin added is found as easily as the app's own routes.
    ///
    /// ```swift
    /// for step in app.pipeline where step.stage == .route { print(step) }   // route: GET / (LabTool, LabTool/main.swift:9)
    /// ```
    public var pipeline: [PipelineStep] {
        definition.withLock { definition in
            func sited<Value>(_ stage: PipelineStage, _ hooks: [Sited<Value>]) -> [PipelineStep] {
                hooks.map { PipelineStep(stage: stage, what: $0.what, site: $0.site) }
            }
            func place(_ condition: PathCondition) -> String {
                let pattern = condition.pattern?.description
                guard let scope = condition.scope else { return pattern ?? "every path" }
                return pattern ?? "\(scope.prefix) and below"
            }
            var steps = sited(.startupCheck, definition.startupChecks) + sited(.preparation, definition.preparations)
            if let folder = definition.settings.publicFolder {
                steps.append(PipelineStep(stage: .staticFiles, what: "\(folder)/ (GET and HEAD)", site: nil))
            }
            steps += sited(.sessionCheck, definition.sessionChecks)
            steps += sited(.identityCheck, definition.identityChecks)
            steps += sited(.credentialCheck, definition.credentialChecks)
            steps.append(PipelineStep(stage: .csrfCheck, what: "POST, PUT, PATCH, DELETE", site: nil))
            steps += definition.aroundBlocks.map { PipelineStep(stage: .around, what: place($0.condition), site: $0.site) }
            steps += definition.beforeFilters.map { PipelineStep(stage: .beforeFilter, what: place($0.condition), site: $0.site) }
            steps += definition.router.routesInDefinitionOrder.map {
                PipelineStep(stage: .route, what: "\($0.method.rawValue) \($0.pattern.description)", site: $0.site)
            }
            steps += definition.afterFilters.map { PipelineStep(stage: .afterFilter, what: place($0.condition), site: $0.site) }
            steps += ErrorHandler.inTryingOrder(definition.errorHandlers).map { handler in
                PipelineStep(stage: .errorHandler, what: handler.scope.map { "\(handler.what) under \($0.prefix)" } ?? handler.what, site: handler.site)
            }
            steps += sited(.templateValue, definition.templateValues.values.sorted { $0.what < $1.what })
            return steps
        }
    }

    /// ``pipeline`` as text, one step a line under the occasion it runs on, in columns: stage,
    /// what, module, file and line. What Micro's `routes` command prints.
    ///
    /// ```text
    /// Each request
    ///   CSRF check  POST, PUT, PATCH, DELETE  MicroCore  (built in)
    ///   route       GET /                     LabTool    LabTool/main.swift:9
    /// ```
    public func describe() -> String {
        let steps = pipeline
        let stageWidth = steps.map(\.stage.name.count).max() ?? 0
        let whatWidth = steps.map(\.what.count).max() ?? 0
        let moduleWidth = steps.map(\.module.count).max() ?? 0
        func padded(_ text: String, _ width: Int) -> String { text + String(repeating: " ", count: max(0, width - text.count)) }
        var lines: [String] = []
        var occasion = ""
        for step in steps {
            if step.stage.occasion != occasion {
                occasion = step.stage.occasion
                lines.append(occasion)
            }
            let site = step.site.map { "\($0)" } ?? "(built in)"
            lines.append("  " + [padded(step.stage.name, stageWidth), padded(step.what, whatWidth), padded(step.module, moduleWidth), site].joined(separator: "  "))
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
