#if canImport(_FoundationICU)
import MicroCore
import _FoundationICU
#endif

/// RFC 5893's Bidi rule, which RFC 8265 applies to a name holding right-to-left text: such a
/// name begins with a right-to-left letter, ends with one or a digit, and holds no
/// left-to-right letter, so that it reads the same wherever it is shown.
enum UsernameDirection {
    /// Whether `name` (enforced) keeps the rule; a name without right-to-left text always does.
    static func isAllowed(_ name: String) -> Bool {
        #if canImport(_FoundationICU)
        let classes = name.unicodeScalars.map { swift_u_charDirection(UChar32(bitPattern: $0.value)) }
        let rightToLeft: [UCharDirection] = [U_RIGHT_TO_LEFT, U_RIGHT_TO_LEFT_ARABIC, U_ARABIC_NUMBER]
        guard classes.contains(where: rightToLeft.contains) else { return true }
        guard let first = classes.first, first == U_RIGHT_TO_LEFT || first == U_RIGHT_TO_LEFT_ARABIC else { return false }
        let allowed: [UCharDirection] = [
            U_RIGHT_TO_LEFT, U_RIGHT_TO_LEFT_ARABIC, U_ARABIC_NUMBER, U_EUROPEAN_NUMBER, U_EUROPEAN_NUMBER_SEPARATOR,
            U_COMMON_NUMBER_SEPARATOR, U_EUROPEAN_NUMBER_TERMINATOR, U_OTHER_NEUTRAL, U_BOUNDARY_NEUTRAL, U_DIR_NON_SPACING_MARK,
        ]
        guard classes.allSatisfy(allowed.contains) else { return false }
        guard let last = classes.last(where: { $0 != U_DIR_NON_SPACING_MARK }),
            [U_RIGHT_TO_LEFT, U_RIGHT_TO_LEFT_ARABIC, U_EUROPEAN_NUMBER, U_ARABIC_NUMBER].contains(last)
        else { return false }
        return !(classes.contains(U_EUROPEAN_NUMBER) && classes.contains(U_ARABIC_NUMBER))
        #else
        // Without ICU's bidi classes (not Linux), the rule is not checked.
        return true
        #endif
    }
}
