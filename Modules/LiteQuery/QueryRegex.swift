import FoundationEssentials
import LiteSupport

/// The regular expressions of `REGEXP_LIKE()`, `REGEXP_CONTAINS()`, `REGEXP_POSITION()` and
/// `REGEXP_REPLACE()`: compiled once per pattern (not once per row), and bounded so that text
/// from replicated documents cannot make a query run for ever.
///
/// All of them search within the string, as Couchbase Lite 2.8's `std::regex_search` does.
enum QueryRegex {
    /// The longest pattern accepted, in UTF-8 bytes.
    static let maximumPatternLength = 4_096
    /// The longest text a pattern runs on, in UTF-8 bytes; a longer one is an error naming the
    /// limit (backtracking time grows with the length of the text).
    static let maximumTextLength = 1 << 20
    /// How many compiled patterns are kept.
    private static let cacheCapacity = 64

    private static let cache = Locked<[String: CompiledRegex]>([:])

    /// A compiled pattern, shared by the queries that use it.
    private struct CompiledRegex: @unchecked Sendable {
        // Unchecked: `Regex` is not marked Sendable, but once lowered (`compiled` matches it once
        // before caching it) matching only reads it, and each match makes its own output.
        let regex: Regex<AnyRegexOutput>
    }
    /// How many patterns were compiled (a cached one is not compiled again).
    static let compilations = Locked(0)

    /// The compiled `pattern`.
    ///
    /// - Throws: ``QueryError`` for a pattern that is not a regular expression, is too long, or
    ///   repeats a group that itself repeats without bound (`(a+)+`, `(a|a)*`), which can take
    ///   time exponential in the length of the text.
    static func compiled(_ pattern: String) throws -> Regex<AnyRegexOutput> {
        if let known = cache.withLock({ $0[pattern] }) { return known.regex }
        guard pattern.utf8.count <= maximumPatternLength else {
            throw QueryError("a regular expression of \(pattern.utf8.count) bytes is longer than the limit of "
                             + "\(maximumPatternLength)")
        }
        if let problem = nestedRepetition(in: pattern) {
            throw QueryError("the regular expression \"\(pattern)\" repeats a group that repeats (\(problem)): "
                             + "matching it can take exponential time; rewrite it without the nested repetition")
        }
        let regex: Regex<AnyRegexOutput>
        do {
            // Swift's Regex on Unicode scalars, its classes (\w, \d, \s) ASCII-only as in the
            // ECMAScript std::regex Couchbase Lite 2.8 runs.
            regex = try Regex(pattern).matchingSemantics(.unicodeScalar)
                .asciiOnlyWordCharacters().asciiOnlyDigits().asciiOnlyWhitespace()
                // `\b` between a word character and any other, as ECMAScript and 2.8 have it;
                // Swift's default (Unicode word rules) sees no boundary in `attraction.drink`.
                .wordBoundaryKind(.simple)
        } catch {
            throw QueryError("invalid regular expression \"\(pattern)\"")
        }
        // Lowered here, before it is shared: concurrent queries then only read it.
        _ = try? regex.firstMatch(in: "")   // allowed: only forces the lowering; the result is not wanted
        compilations.withLock { $0 += 1 }
        cache.withLock { entries in
            if entries.count >= cacheCapacity { entries.removeAll(keepingCapacity: true) }
            entries[pattern] = CompiledRegex(regex: regex)
        }
        return regex
    }

    /// Whether `pattern` matches anywhere in `text`.
    static func matches(_ text: String, _ pattern: String) throws -> Bool {
        let regex = try compiled(pattern)
        try checkLength(text)
        return try regex.firstMatch(in: text) != nil
    }

    /// The UTF-8 byte offset of the first match (as 2.8 counts: the length of the text before
    /// it), or -1.
    static func position(_ text: String, _ pattern: String) throws -> Int64 {
        let regex = try compiled(pattern)
        try checkLength(text)
        guard let match = try regex.firstMatch(in: text) else { return -1 }
        return Int64(text.utf8.distance(from: text.startIndex, to: match.range.lowerBound))
    }

    /// `text` with the first `limit` matches (all when nil or negative) replaced by
    /// `replacement`, where `$&` is the match, `$1`…`$9` its groups and `$$` a dollar sign.
    static func replace(_ text: String, _ pattern: String, _ replacement: String, limit: Int?) throws -> String {
        let regex = try compiled(pattern)
        try checkLength(text)
        var result = ""
        var rest = text.startIndex
        var remaining = limit.map { $0 < 0 ? Int.max : $0 } ?? Int.max
        for match in text.matches(of: regex) {
            guard remaining > 0 else { break }
            remaining -= 1
            result += text[rest..<match.range.lowerBound]
            result += expand(replacement, match)
            rest = match.range.upperBound
        }
        return result + text[rest...]
    }

    private static func expand(_ replacement: String, _ match: Regex<AnyRegexOutput>.Match) -> String {
        var out = ""
        var characters = replacement[...]
        while let c = characters.popFirst() {
            guard c == "$", let next = characters.first else { out.append(c); continue }
            if next == "$" {
                characters.removeFirst()
                out.append("$")
            } else if next == "&" {
                characters.removeFirst()
                out += match.output[0].substring ?? ""
            } else if let digit = next.wholeNumberValue, next.isASCII, digit > 0 {
                characters.removeFirst()
                if digit < match.output.count { out += match.output[digit].substring ?? "" }
            } else {
                out.append(c)
            }
        }
        return out
    }

    private static func checkLength(_ text: String) throws {
        guard text.utf8.count <= maximumTextLength else {
            throw QueryError("a regular expression cannot run on a string of \(text.utf8.count) bytes; the limit is "
                             + "\(maximumTextLength)")
        }
    }

    /// The first group that is repeated without bound while something inside it also repeats
    /// without bound (`(a+)+`, `(\w*\s?)*`), or nil. Escapes and bracket sets are skipped; it
    /// errs towards accepting (alternatives under a repetition, `(a|a)*`, are not caught).
    static func nestedRepetition(in pattern: String) -> String? {
        let characters = Array(pattern)
        func unboundedQuantifier(at position: Int) -> Bool {
            guard position < characters.count else { return false }
            switch characters[position] {
            case "*", "+": return true
            case "{":
                var end = position + 1
                while end < characters.count, characters[end] != "}" { end += 1 }
                return end < characters.count && characters[position + 1..<end].last == ","
            default: return false
            }
        }
        // For each open group: where it starts, and whether something in it repeats without bound.
        var groups: [(start: Int, repeats: Bool)] = []
        var index = 0
        while index < characters.count {
            switch characters[index] {
            case "\\":
                index += 1
            case "[":
                index += 1
                if index < characters.count, characters[index] == "^" { index += 1 }
                if index < characters.count, characters[index] == "]" { index += 1 }
                while index < characters.count, characters[index] != "]" {
                    index += characters[index] == "\\" ? 2 : 1
                }
            case "(":
                groups.append((index, false))
            case ")":
                guard let group = groups.popLast() else { break }
                let repeated = unboundedQuantifier(at: index + 1)
                if repeated, group.repeats { return String(characters[group.start...index + 1]) }
                if !groups.isEmpty, group.repeats || repeated { groups[groups.count - 1].repeats = true }
            default:
                if unboundedQuantifier(at: index), !groups.isEmpty { groups[groups.count - 1].repeats = true }
            }
            index += 1
        }
        return nil
    }
}
