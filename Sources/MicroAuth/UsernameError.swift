import Foundation
import MicroCore

/// Why a text cannot be a username under ``Username``'s rule, naming the code point at fault.
///
/// ```swift
/// do { _ = try Username.enforce("a:b") } catch { print(error) }
/// // the username 'a:b' holds ':', which HTTP Basic authentication cannot send
/// ```
public struct UsernameError: Error, Sendable, Equatable, CustomStringConvertible {
    private enum Reason: Sendable, Equatable {
        case empty, colon, space, control, compatibility, unassigned, invisible, notIdentifier, direction
    }

    private let reason: Reason
    /// The code point refused, when one is to blame.
    public let scalar: Unicode.Scalar?
    /// The refused text, with what a terminal would act on or not show written as `\u{1B}`.
    public let shownName: String

    private init(_ reason: Reason, _ name: String, _ scalar: Unicode.Scalar? = nil) {
        self.reason = reason
        self.scalar = scalar
        shownName = Username.shown(name)
    }

    /// An empty name (or one that is empty once spaces are trimmed).
    public static let empty = UsernameError(.empty, "")
    static func colon(_ name: String) -> UsernameError { UsernameError(.colon, name, ":") }
    static func space(_ name: String, _ scalar: Unicode.Scalar) -> UsernameError { UsernameError(.space, name, scalar) }
    static func control(_ name: String, _ scalar: Unicode.Scalar) -> UsernameError { UsernameError(.control, name, scalar) }
    static func compatibility(_ name: String, _ scalar: Unicode.Scalar) -> UsernameError { UsernameError(.compatibility, name, scalar) }
    static func unassigned(_ name: String, _ scalar: Unicode.Scalar) -> UsernameError { UsernameError(.unassigned, name, scalar) }
    static func invisible(_ name: String, _ scalar: Unicode.Scalar) -> UsernameError { UsernameError(.invisible, name, scalar) }
    static func notIdentifier(_ name: String, _ scalar: Unicode.Scalar) -> UsernameError { UsernameError(.notIdentifier, name, scalar) }
    static func direction(_ name: String) -> UsernameError { UsernameError(.direction, name) }

    public var description: String {
        let code = scalar.map(Username.codePoint) ?? ""
        let what: String
        switch reason {
        case .empty:
            return "a username cannot be empty"
        case .colon:
            what = "holds ':', which HTTP Basic authentication cannot send"
        case .space:
            what = "holds a space (\(code)); names have no spaces"
        case .control:
            what = "holds the control character \(code) (controls and terminal escapes are refused)"
        case .compatibility:
            let plain = scalar.map { String($0).precomposedStringWithCompatibilityMapping } ?? ""
            what = "holds \(code), a compatibility form of '\(Username.shown(plain))': write that instead"
        case .unassigned:
            what = "holds \(code), which Unicode has not assigned"
        case .invisible:
            what = "holds \(code), which is invisible"
        case .notIdentifier:
            what = "holds \(code), which is not a letter, a digit or ASCII punctuation"
        case .direction:
            what = "mixes right-to-left text with what cannot go with it (RFC 5893's Bidi rule)"
        }
        return "the username '\(shownName)' \(what)"
    }
}
