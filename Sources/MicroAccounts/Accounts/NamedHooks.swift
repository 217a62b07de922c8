import MicroCore

/// Hooks other modules register with the account pages, each under a name for the log
/// (`identity links`, `passkeys`), run in the order added: the account pages know none of them,
/// and a module added later registers its own. One per name: a plugin installed again replaces
/// its own rather than adding a second.
struct NamedHooks<Hook: Sendable>: Sendable {
    /// One hook: its name for the log, and what it does.
    struct Entry: Sendable {
        let what: String
        let run: Hook
    }

    private(set) var list: [Entry] = []

    /// Adds `run` under `what`, in place of one there was.
    mutating func set(_ what: String, _ run: Hook) {
        list.removeAll { $0.what == what }
        list.append(Entry(what: what, run: run))
    }
}
