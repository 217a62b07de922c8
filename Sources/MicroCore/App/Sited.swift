/// A hook the app keeps (a check, a preparation, a template value), with what it is and where
/// it was added: ``App/pipeline`` lists them with the routes and filters.
struct Sited<Value: Sendable>: Sendable {
    /// What the hook is, in a few words (`HTTP Basic`, `version`).
    let what: String
    /// Where it was added.
    let site: SourceSite
    let value: Value
}
