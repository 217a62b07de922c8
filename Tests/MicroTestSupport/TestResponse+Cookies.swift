import Foundation
import MicroTesting

package extension TestResponse {
    /// The `Set-Cookie` header value for the cookie `name`, if the response sets it.
    func setCookieHeader(_ name: String = sessionCookie) -> String? {
        headers["Set-Cookie"].last { $0.hasPrefix(name + "=") }
    }

    /// The attributes of the `Set-Cookie` for `name` (`HttpOnly`, `Path=/`, ...).
    func cookieAttributes(_ name: String = sessionCookie) -> [String] {
        guard let header = setCookieHeader(name) else { return [] }
        return header.split(separator: ";").dropFirst().map { $0.trimmingCharacters(in: .whitespaces) }
    }
}
