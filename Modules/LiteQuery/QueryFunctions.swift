import FoundationEssentials

/// The operators and functions the query engine knows, with their argument counts and N1QL
/// semantics (MISSING and NULL propagate: an operand that is missing makes most results
/// missing, a null one null).
enum QueryFunctions {
    static let aggregates: Set = ["COUNT()", "SUM()", "AVG()", "MIN()", "MAX()"]

    /// Allowed argument counts (nil: any).
    private static let arity: [String: ClosedRange<Int>] = [
        "=": 2...2, "==": 2...2, "!=": 2...2, "<>": 2...2, "<": 2...2, "<=": 2...2, ">": 2...2, ">=": 2...2,
        "+": 2...9, "-": 1...2, "*": 2...9, "/": 2...2, "%": 2...2, "||": 2...9,
        "AND": 2...Int.max, "OR": 2...Int.max, "NOT": 1...1, "IS": 2...2, "IS NOT": 2...2,
        "IN": 2...2, "NOT IN": 2...2, "LIKE": 2...2, "BETWEEN": 3...3, "EXISTS": 1...1,
        "IS VALUED": 1...1, "IS MISSING": 1...1, "IS NOT MISSING": 1...1,
        "ABS()": 1...1, "CEIL()": 1...1, "FLOOR()": 1...1, "ROUND()": 1...2, "TRUNC()": 1...2, "SQRT()": 1...1,
        "POWER()": 2...2, "SIGN()": 1...1, "EXP()": 1...1, "LN()": 1...1, "LOG()": 1...1, "PI()": 0...0, "E()": 0...0,
        "SIN()": 1...1, "COS()": 1...1, "TAN()": 1...1, "ASIN()": 1...1, "ACOS()": 1...1, "ATAN()": 1...1,
        "ATAN2()": 2...2, "DEGREES()": 1...1, "RADIANS()": 1...1,
        "LOWER()": 1...1, "UPPER()": 1...1, "LENGTH()": 1...1, "TRIM()": 1...2, "LTRIM()": 1...2, "RTRIM()": 1...2,
        "CONTAINS()": 2...2, "CONCAT()": 2...Int.max,
        "REGEXP_LIKE()": 2...2, "REGEXP_CONTAINS()": 2...2, "REGEXP_POSITION()": 2...2, "REGEXP_REPLACE()": 3...4,
        "ARRAY_CONTAINS()": 2...2, "ARRAY_OF()": 0...9,
        "ARRAY_AVG()": 1...1, "ARRAY_MAX()": 1...1, "ARRAY_MIN()": 1...1, "ARRAY_IFNULL()": 1...1,
        "GREATEST()": 2...9, "LEAST()": 2...9, "MISSINGIF()": 2...2, "NULLIF()": 2...2,
        "ISATOM()": 1...1, "IS_VALUED()": 1...1, "TOARRAY()": 1...1, "TOATOM()": 1...1, "TOBOOLEAN()": 1...1,
        "TOOBJECT()": 1...1, "ARRAY_LENGTH()": 1...1, "ARRAY_COUNT()": 1...1, "ARRAY_SUM()": 1...1,
        "IFMISSING()": 2...Int.max, "IFNULL()": 2...Int.max, "IFMISSINGORNULL()": 2...Int.max,
        "ISARRAY()": 1...1, "ISBOOLEAN()": 1...1, "ISNUMBER()": 1...1, "ISOBJECT()": 1...1, "ISSTRING()": 1...1,
        "TYPE()": 1...1, "TOSTRING()": 1...1, "TONUMBER()": 1...1,
        "MILLIS_TO_STR()": 1...1, "MILLIS_TO_UTC()": 1...1, "STR_TO_MILLIS()": 1...1, "STR_TO_UTC()": 1...1,
        "COUNT()": 1...1, "SUM()": 1...1, "AVG()": 1...1, "MIN()": 1...1, "MAX()": 1...1,
        "MATCH()": 2...2, "RANK()": 1...1, "MATCH_OFFSETS()": 1...1,
    ]

    static func checkArity(_ name: String, count: Int, at location: String) throws {
        guard let range = arity[name] else {
            throw QueryError("unknown function or operator \"\(name)\"", at: location)
        }
        guard range.contains(count) else {
            let expected = range.lowerBound == range.upperBound ? "\(range.lowerBound)"
                : range.upperBound == Int.max ? "at least \(range.lowerBound)" : "\(range.lowerBound)–\(range.upperBound)"
            throw QueryError("\(name) takes \(expected) argument(s), not \(count)", at: location)
        }
    }

    /// LIKE: `%` any run, `_` one character, `\` escapes; case-insensitive (as the 2.0 guide says).
    ///
    /// Iterative, remembering only the last `%` to fall back to: the time is at most text × pattern
    /// characters and the stack does not grow with the text (a recursive matcher overflowed it
    /// on a 2 MB string from a replicated document).
    static func like(_ text: String, _ pattern: String) -> Bool {
        let t = Array(text.lowercased())
        var p: [LikeToken] = []
        var characters = Array(pattern.lowercased())[...]
        while let c = characters.popFirst() {
            switch c {
            case "%": if p.last != .anyRun { p.append(.anyRun) }
            case "_": p.append(.one)
            case "\\": p.append(.literal(characters.popFirst() ?? "\\"))
            default: p.append(.literal(c))
            }
        }
        var i = 0, j = 0
        var fallback: (pattern: Int, text: Int)?
        while i < t.count {
            if j < p.count, p[j] == .anyRun {
                fallback = (j + 1, i)
                j += 1
            } else if j < p.count, p[j] == .one || p[j] == .literal(t[i]) {
                i += 1
                j += 1
            } else if let last = fallback {
                // The last `%` takes one more character; everything after it is tried again.
                fallback = (last.pattern, last.text + 1)
                i = last.text + 1
                j = last.pattern
            } else {
                return false
            }
        }
        while j < p.count, p[j] == .anyRun { j += 1 }
        return j == p.count
    }

    private enum LikeToken: Equatable {
        case anyRun, one, literal(Character)
    }
}
