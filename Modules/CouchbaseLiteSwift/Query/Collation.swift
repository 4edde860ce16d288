/// How strings compare: `Collation.ascii()` or `Collation.unicode()`, used with `collate`.
///
/// ```swift
/// Expression.property("name").collate(Collation.unicode().ignoreCase(true).ignoreAccents(true))
///     .equalTo(Expression.string("ecole"))
/// ```
public enum Collation {
    /// Byte-wise comparison of ASCII text (optionally ignoring case).
    public static func ascii() -> ASCIICollation { ASCIICollation(ignoresCase: false) }
    /// Unicode comparison (optionally ignoring case and accents, for a locale).
    public static func unicode() -> UnicodeCollation {
        UnicodeCollation(ignoresCase: false, ignoresAccents: false, locale: nil)
    }
}

/// A collation.
public protocol CollationProtocol: Sendable {}

extension CollationProtocol {
    var queryNode: QueryNode {
        switch self {
        case let ascii as ASCIICollation:
            return .dictionary(["UNICODE": .bool(false), "CASE": .bool(!ascii.ignoresCase)])
        case let unicode as UnicodeCollation:
            var entries: [String: QueryNode] = ["UNICODE": .bool(true), "CASE": .bool(!unicode.ignoresCase),
                                                "DIAC": .bool(!unicode.ignoresAccents)]
            if let locale = unicode.locale { entries["LOCALE"] = .string(locale) }
            return .dictionary(entries)
        default:
            return .invalid("\(type(of: self)) is not a collation made by the query builder")
        }
    }
}

/// ASCII collation.
public struct ASCIICollation: CollationProtocol {
    let ignoresCase: Bool
    /// Whether upper and lower case compare equal.
    public func ignoreCase(_ ignoreCase: Bool) -> ASCIICollation { ASCIICollation(ignoresCase: ignoreCase) }
}

/// Unicode collation.
public struct UnicodeCollation: CollationProtocol {
    let ignoresCase: Bool
    let ignoresAccents: Bool
    let locale: String?
    /// Whether upper and lower case compare equal.
    public func ignoreCase(_ ignoreCase: Bool) -> UnicodeCollation {
        UnicodeCollation(ignoresCase: ignoreCase, ignoresAccents: ignoresAccents, locale: locale)
    }
    /// Whether letters with and without accents compare equal.
    public func ignoreAccents(_ ignoreAccents: Bool) -> UnicodeCollation {
        UnicodeCollation(ignoresCase: ignoresCase, ignoresAccents: ignoreAccents, locale: locale)
    }
    /// The locale whose rules apply (a language code such as `"en"` or `"fr_CA"`).
    public func locale(_ locale: String?) -> UnicodeCollation {
        UnicodeCollation(ignoresCase: ignoresCase, ignoresAccents: ignoresAccents, locale: locale)
    }
}
