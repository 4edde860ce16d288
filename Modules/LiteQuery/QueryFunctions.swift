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
    static func like(_ text: String, _ pattern: String) -> Bool {
        let t = Array(text.lowercased()), p = Array(pattern.lowercased())
        var memo = [Int: Bool]()
        func match(_ i: Int, _ j: Int) -> Bool {
            let key = i * (p.count + 1) + j
            if let known = memo[key] { return known }
            let result: Bool
            if j == p.count {
                result = i == t.count
            } else if p[j] == "%" {
                result = match(i, j + 1) || (i < t.count && match(i + 1, j))
            } else if p[j] == "\\", j + 1 < p.count {
                result = i < t.count && t[i] == p[j + 1] && match(i + 1, j + 2)
            } else if i < t.count, p[j] == "_" || p[j] == t[i] {
                result = match(i + 1, j + 1)
            } else {
                result = false
            }
            memo[key] = result
            return result
        }
        return match(0, 0)
    }

    /// Whether `pattern` (a regular expression, case-sensitive) matches anywhere in `text`.
    static func regexMatches(_ text: String, _ pattern: String) throws -> Bool {
        do {
            // Swift's Regex on Unicode scalars, its classes (\w, \d, \s) ASCII-only as in the
            // ECMAScript std::regex Couchbase Lite 2.8 runs.
            return try Regex(pattern).matchingSemantics(.unicodeScalar)
                .asciiOnlyWordCharacters().asciiOnlyDigits().asciiOnlyWhitespace()
                .firstMatch(in: text) != nil
        } catch {
            throw QueryError("invalid regular expression \"\(pattern)\"")
        }
    }
}
