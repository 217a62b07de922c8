/// Where the app runs, from `MICRO_ENV`: development (the default), production or test.
///
/// Development shows error details and reloads templates; production hides details and
/// insists on explicit secrets.
public enum Environment: String, Sendable, CaseIterable {
    case development, production, test

    /// The environment named by `MICRO_ENV`, development when unset.
    /// Throws a ``ConfigurationError`` for any other value, so a typo never runs production
    /// code with development defaults.
    public static func fromProcess(_ variables: [String: String]) throws(ConfigurationError) -> Environment {
        guard let raw = variables["MICRO_ENV"], !raw.isEmpty else { return .development }
        guard let environment = Environment(rawValue: raw.lowercased()) else {
            throw ConfigurationError("MICRO_ENV is '\(raw)'; expected development, production or test.")
        }
        return environment
    }
}
