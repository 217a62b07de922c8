import ArgumentParser
import Micro

/// A username as the commands take it: one that ``Username`` accepts, or a usage error saying
/// why not.
enum UsernameArgument {
    static func validate(_ username: String) throws {
        do throws(UsernameError) {
            _ = try Username.enforce(username)
        } catch {
            throw ValidationError("\(error).")
        }
    }
}
