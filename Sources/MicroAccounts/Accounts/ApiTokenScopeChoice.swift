import MicroAuth
import MicroCore

/// The scopes a new token is made with, from what a form or script sent (`scopes`, repeated,
/// each value one name or several apart by spaces or commas), in the order a token keeps them:
/// ``/MicroAuth/ScopeName/read`` or ``/MicroAuth/ScopeName/write``, then the app's own in the
/// order it declared them.
enum ApiTokenScopeChoice {
    /// The scopes, or the message of a refusal.
    enum Outcome: Equatable {
        case chosen([String])
        case refused(String)
    }

    /// What a request with no scopes gets: read-only, the safe side for a token whose maker
    /// said nothing.
    static let defaultScopes = [ScopeName.read]

    /// Every scope `settings` offers: the built-in ones, then the app's.
    static func offered(_ settings: ApiTokenSettings) -> [ApiTokenScope] {
        ApiTokenScope.builtIn + settings.scopes
    }

    /// The names `sent` holds, each once, in the order sent; nil when there are more than a
    /// token could have, however many are the same (bounded before anything is split).
    static func names(in sent: [String]) -> [String]? {
        let most = ApiTokenLimits.scopesPerToken * 2
        guard sent.count <= most, sent.allSatisfy({ $0.utf8.count <= most * (ScopeName.maximumLength + 1) }) else { return nil }
        var names: [String] = []
        for value in sent {
            for piece in value.split(whereSeparator: { $0 == " " || $0 == "," || $0 == "\t" }) where !names.contains(String(piece)) {
                names.append(String(piece))
                if names.count > most { return nil }
            }
        }
        return names
    }

    static func choose(_ sent: [String], _ settings: ApiTokenSettings) -> Outcome {
        let tooMany = Outcome.refused(settings.tooManyScopesMessage)
        guard let names = names(in: sent) else { return tooMany }
        let offered = offered(settings)
        if let unknown = names.first(where: { name in !offered.contains { $0.name == name } }) {
            let shown = ScopeName.isValid(unknown) ? "'\(unknown)'" : "of that name"
            return .refused(settings.unknownScopeMessage.replacingOccurrences(of: "SCOPES", with: offered.map(\.name).joined(separator: ", "))
                .replacingOccurrences(of: "SCOPE", with: shown))
        }
        if names.isEmpty { return .chosen(defaultScopes) }
        let chosen = canonical(names, declared: settings.scopes.map(\.name))
        return chosen.count > ApiTokenLimits.scopesPerToken ? tooMany : .chosen(chosen)
    }

    /// `names` in a token's order: ``/MicroAuth/ScopeName/write`` when it is among them (it
    /// includes ``/MicroAuth/ScopeName/read``), else ``/MicroAuth/ScopeName/read``; then the
    /// others, those of `declared` in its order first.
    static func canonical(_ names: [String], declared: [String]) -> [String] {
        let access = names.contains(ScopeName.write) ? ScopeName.write : ScopeName.read
        let own = names.filter { $0 != ScopeName.read && $0 != ScopeName.write }
        let known = declared.filter(own.contains)
        return [access] + known + own.filter { !declared.contains($0) }
    }

    /// The scopes a store kept as text (names apart by spaces): the names by the rule, in a
    /// token's order; read-only when it holds no ``/MicroAuth/ScopeName/write``, so that a
    /// damaged row fails closed.
    static func stored(_ text: String) -> [String] {
        var names: [String] = []
        for piece in text.split(separator: " ").prefix(ApiTokenLimits.scopesPerToken * 2) where ScopeName.isValid(piece) {
            if !names.contains(String(piece)) { names.append(String(piece)) }
        }
        return canonical(names, declared: [])
    }

    /// The problems of the app's own scopes, for the app not to start with them.
    static func problems(_ settings: ApiTokenSettings) -> [String] {
        var problems: [String] = []
        if settings.scopes.count > ApiTokenLimits.declaredScopes {
            problems.append("Accounts.apiTokens.scopes has \(settings.scopes.count) scopes: at most \(ApiTokenLimits.declaredScopes).")
        }
        var seen = Set(ApiTokenScope.builtIn.map(\.name))
        for scope in settings.scopes {
            let name = scope.name.prefix(64)
            if !ScopeName.isValid(scope.name) {
                problems.append(
                    "The API token scope '\(name)' breaks the rule: 1 to \(ScopeName.maximumLength) lowercase letters, digits, '-', '_' or ':', beginning with a letter.")
            } else if !seen.insert(scope.name).inserted {
                problems.append("The API token scope '\(name)' is declared twice, or is a built-in one (read, write).")
            }
            if ShownName.accepted(scope.description, limit: 200) == nil {
                problems.append("The API token scope '\(name)' needs a description of 1 to 200 characters, without control characters.")
            }
        }
        return problems
    }
}
