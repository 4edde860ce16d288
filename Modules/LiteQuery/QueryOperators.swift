import FoundationEssentials
import Glibc
import LiteSupport

/// Operators and scalar functions on evaluated operands.
enum QueryOperators {
    static func apply(_ name: String, _ values: [QueryValue]) throws -> QueryValue {
        switch name {
        case "=", "==": return compare(values, { $0 == 0 })
        case "!=", "<>": return compare(values, { $0 != 0 })
        case "<": return compare(values, { $0 < 0 })
        case "<=": return compare(values, { $0 <= 0 })
        case ">": return compare(values, { $0 > 0 })
        case ">=": return compare(values, { $0 >= 0 })
        case "NOT":
            switch values[0] {
            case .missing, .null: return values[0]
            default: return .bool(!values[0].isTruthy)
            }
        case "IS": return .bool(identical(values[0], values[1]))
        case "IS NOT": return .bool(!identical(values[0], values[1]))
        case "IS NULL", "IS NOT NULL":
            if values[0] == .missing { return .missing }
            return .bool((values[0] == .null) == (name == "IS NULL"))
        case "IS MISSING": return .bool(values[0] == .missing)
        case "IS NOT MISSING", "EXISTS": return .bool(values[0] != .missing)
        case "IS VALUED": return .bool(values[0] != .missing && values[0] != .null)
        case "BETWEEN":
            let low = compare([values[0], values[1]], { $0 >= 0 }), high = compare([values[0], values[2]], { $0 <= 0 })
            if case .bool(let a) = low, case .bool(let b) = high { return .bool(a && b) }
            return low == .missing || high == .missing ? .missing : .null
        case "IN", "NOT IN":
            if let absent = absent(values[0]) { return absent }
            guard case .array(let items) = values[1] else { return .null }
            let found = items.contains { QueryValue.compare($0, values[0]) == 0 && $0.typeRank == values[0].typeRank }
            return .bool(name == "IN" ? found : !found)
        case "LIKE":
            if let absent = absent(values[0], values[1]) { return absent }
            guard case .string(let text) = values[0], case .string(let pattern) = values[1] else { return .null }
            return .bool(QueryFunctions.like(text, pattern))
        case "REGEXP_LIKE()", "REGEXP_CONTAINS()":
            if let absent = absent(values[0], values[1]) { return absent }
            guard case .string(let text) = values[0], case .string(let pattern) = values[1] else { return .null }
            return .bool(try QueryRegex.matches(text, pattern))
        case "REGEXP_POSITION()":
            if let absent = absent(values[0], values[1]) { return absent }
            guard case .string(let text) = values[0], case .string(let pattern) = values[1] else { return .null }
            return .int(try QueryRegex.position(text, pattern))
        case "REGEXP_REPLACE()":
            if let absent = absent(values) { return absent }
            guard case .string(let text) = values[0], case .string(let pattern) = values[1],
                  case .string(let replacement) = values[2] else { return .null }
            var limit: Int?
            if values.count > 3 {
                guard let number = values[3].number, number.isFinite else { return .null }
                limit = Int(max(-1e18, min(1e18, number.rounded(.towardZero))))
            }
            return .string(try QueryRegex.replace(text, pattern, replacement, limit: limit))
        case "+", "-", "*", "/", "%": return arithmetic(name, values)
        case "||", "CONCAT()":
            if let absent = absent(values) { return absent }
            var text = ""
            for value in values {
                guard case .string(let part) = value else { return .null }
                text += part
            }
            return .string(text)
        case "[]", "ARRAY_OF()": return .array(values)
        case "_.":
            guard case .array(let path) = values[1] else { return .missing }
            return QueryEvaluator.walk(values[0], path.map { step in
                if case .int(let index) = step { return .index(Int(clamping: index)) }
                if case .string(let key) = step { return .key(key) }
                return .key("")
            })
        case "{}":
            var entries: [String: QueryValue] = [:]
            for pair in stride(from: 0, to: values.count - 1, by: 2) {
                if case .string(let key) = values[pair], values[pair + 1] != .missing { entries[key] = values[pair + 1] }
            }
            return .dictionary(entries)
        default:
            return try function(name, values)
        }
    }

    /// MISSING if any operand is missing, else NULL if any is null, else nil.
    static func absent(_ values: QueryValue...) -> QueryValue? { absent(values) }
    static func absent(_ values: [QueryValue]) -> QueryValue? {
        if values.contains(.missing) { return .missing }
        if values.contains(.null) { return .null }
        return nil
    }

    /// `IS` compares missing and null too.
    static func identical(_ a: QueryValue, _ b: QueryValue) -> Bool {
        a.typeRank == b.typeRank && QueryValue.compare(a, b) == 0
    }

    private static func compare(_ values: [QueryValue], _ test: (Int) -> Bool) -> QueryValue {
        if let absent = absent(values[0], values[1]) { return absent }
        let a = values[0], b = values[1]
        // Values of different types are not equal; ordering between them follows collation.
        if a.typeRank != b.typeRank, (a.number == nil || b.number == nil) { return .bool(test(a.typeRank < b.typeRank ? -1 : 1)) }
        return .bool(test(QueryValue.compare(a, b)))
    }

    private static func arithmetic(_ name: String, _ values: [QueryValue]) -> QueryValue {
        if name == "-", values.count == 1 {
            switch values[0] {
            case .int(let value) where value != .min: return .int(-value)
            case let value: return value.number.map { .double(-$0) } ?? (absent(value) ?? .null)
            }
        }
        if let absent = absent(values[0], values[1]) { return absent }
        if case .int(let a) = values[0], case .int(let b) = values[1] {
            switch name {
            case "+": let (r, o) = a.addingReportingOverflow(b); if !o { return .int(r) }
            case "-": let (r, o) = a.subtractingReportingOverflow(b); if !o { return .int(r) }
            case "*": let (r, o) = a.multipliedReportingOverflow(by: b); if !o { return .int(r) }
            case "%": return b == 0 ? .null : .int(a % b)
            default: break
            }
        }
        guard let a = values[0].number, let b = values[1].number else { return .null }
        switch name {
        case "+": return .double(a + b)
        case "-": return .double(a - b)
        case "*": return .double(a * b)
        case "/": return b == 0 ? .null : .double(a / b)
        default: return b == 0 ? .null : .double(a.truncatingRemainder(dividingBy: b))
        }
    }

    private static func function(_ name: String, _ values: [QueryValue]) throws -> QueryValue {
        switch name {
        case "IFMISSING()": return values.first { $0 != .missing } ?? .null
        case "IFNULL()": return values.first { $0 != .null } ?? .null
        case "IFMISSINGORNULL()": return values.first { $0 != .null && $0 != .missing } ?? .null
        case "ISARRAY()": return typeTest(values[0]) { if case .array = $0 { true } else { false } }
        case "ISBOOLEAN()": return typeTest(values[0]) { if case .bool = $0 { true } else { false } }
        case "ISNUMBER()": return typeTest(values[0]) { $0.number != nil }
        case "ISOBJECT()": return typeTest(values[0]) { if case .dictionary = $0 { true } else { false } }
        case "ISSTRING()": return typeTest(values[0]) { if case .string = $0 { true } else { false } }
        case "TYPE()":
            let names = ["missing", "null", "boolean", "boolean", "number", "string", "array", "object"]
            return .string(names[values[0].typeRank])
        case "ISATOM()":
            return typeTest(values[0]) { value in
                switch value {
                case .bool, .int, .double, .string: true
                default: false
                }
            }
        case "IS_VALUED()": return .bool(values[0] != .missing && values[0] != .null)
        case "MISSINGIF()", "NULLIF()":
            if let absent = absent(values[0]) { return absent }
            guard compare(values, { $0 == 0 }) == .bool(true) else { return values[0] }
            return name == "MISSINGIF()" ? .missing : .null
        case "GREATEST()", "LEAST()":
            // N1QL: the largest (smallest) of the values that are neither MISSING nor NULL.
            let present = values.filter { $0 != .missing && $0 != .null }
            let pick = name == "GREATEST()" ? present.max { QueryValue.compare($0, $1) < 0 }
                                           : present.min { QueryValue.compare($0, $1) < 0 }
            return pick ?? .null
        case "PI()": return .double(Double.pi)
        case "E()": return .double(M_E)
        default: break
        }
        if let absent = absent(values) { return absent }
        switch name {
        case "LOWER()", "UPPER()", "TRIM()", "LTRIM()", "RTRIM()":
            guard case .string(let text) = values[0] else { return .null }
            if values.count == 2 {
                // TRIM(text, characters): those characters instead of whitespace (2.8's second argument).
                guard case .string(let characters) = values[1] else { return .null }
                let set = Set(characters)
                var trimmed = text[...]
                if name != "RTRIM()" { trimmed = trimmed.drop { set.contains($0) } }
                if name != "LTRIM()" { while let last = trimmed.last, set.contains(last) { trimmed.removeLast() } }
                return .string(String(trimmed))
            }
            switch name {
            case "LOWER()": return .string(text.lowercased())
            case "UPPER()": return .string(text.uppercased())
            case "TRIM()": return .string(text.trimmingSpaces())
            case "LTRIM()": return .string(String(text.drop { $0.isWhitespace }))
            default: return .string(String(text.reversed().drop { $0.isWhitespace }.reversed()))
            }
        case "LENGTH()":
            guard case .string(let text) = values[0] else { return .null }
            return .int(Int64(text.count))
        case "CONTAINS()":
            guard case .string(let text) = values[0], case .string(let part) = values[1] else { return .null }
            return .bool(text.contains(part))
        case "ARRAY_CONTAINS()":
            guard case .array(let items) = values[0] else { return .null }
            return .bool(items.contains { identical($0, values[1]) })
        case "ARRAY_LENGTH()", "ARRAY_COUNT()":
            guard case .array(let items) = values[0] else { return .null }
            return .int(Int64(name == "ARRAY_LENGTH()" ? items.count : items.filter { $0 != .null && $0 != .missing }.count))
        case "ARRAY_AVG()":
            guard case .array(let items) = values[0] else { return .null }
            let numbers = items.compactMap(\.number)
            return numbers.isEmpty ? .null : .double(numbers.reduce(0, +) / Double(numbers.count))
        case "ARRAY_MAX()", "ARRAY_MIN()":
            guard case .array(let items) = values[0] else { return .null }
            let present = items.filter { $0 != .missing && $0 != .null }
            let pick = name == "ARRAY_MAX()" ? present.max { QueryValue.compare($0, $1) < 0 }
                                             : present.min { QueryValue.compare($0, $1) < 0 }
            return pick ?? .null
        case "ARRAY_IFNULL()":
            guard case .array(let items) = values[0] else { return .null }
            return items.first { $0 != .missing && $0 != .null } ?? .null
        case "TOARRAY()":
            if case .array = values[0] { return values[0] }
            return .array([values[0]])
        case "TOATOM()":
            switch values[0] {
            case .bool, .int, .double, .string: return values[0]
            case .array(let items): return items.count == 1 ? items[0] : .null
            case .dictionary(let entries): return entries.count == 1 ? entries.values.first ?? .null : .null
            default: return .null
            }
        case "TOBOOLEAN()":
            switch values[0] {
            case .double(let value): return .bool(value != 0 && !value.isNaN)
            default: return .bool(values[0].isTruthy)
            }
        case "TOOBJECT()":
            if case .dictionary = values[0] { return values[0] }
            return .dictionary([:])
        case "ARRAY_SUM()":
            guard case .array(let items) = values[0] else { return .null }
            return .double(items.compactMap(\.number).reduce(0, +))
        case "TOSTRING()":
            switch values[0] {
            case .string: return values[0]
            case .int(let value): return .string(String(value))
            case .double(let value): return .string(String(value))
            case .bool(let flag): return .string(flag ? "true" : "false")
            default: return .null
            }
        case "TONUMBER()":
            switch values[0] {
            case .int, .double: return values[0]
            case .bool(let flag): return .int(flag ? 1 : 0)
            case .string(let text): return Double(text.trimmingSpaces()).map { .double($0) } ?? .null
            default: return .null
            }
        case "MILLIS_TO_STR()", "MILLIS_TO_UTC()":
            if let absent = absent(values[0]) { return absent }
            let millis: Int64
            switch values[0] {
            case .int(let number): millis = number
            case .double(let number) where number.isFinite: millis = Int64(max(-9e18, min(9e18, number.rounded(.towardZero))))
            default: return .null
            }
            return QueryDates.string(millis: millis, utc: name == "MILLIS_TO_UTC()").map { .string($0) } ?? .null
        case "STR_TO_MILLIS()", "STR_TO_UTC()":
            if let absent = absent(values[0]) { return absent }
            guard case .string(let text) = values[0], let millis = QueryDates.millis(text) else { return .null }
            return name == "STR_TO_MILLIS()" ? .int(millis) : QueryDates.string(millis: millis, utc: true).map { .string($0) } ?? .null
        default:
            return math(name, values)
        }
    }

    private static func typeTest(_ value: QueryValue, _ test: (QueryValue) -> Bool) -> QueryValue {
        if let absent = absent(value) { return absent }
        return .bool(test(value))
    }

    private static func math(_ name: String, _ values: [QueryValue]) -> QueryValue {
        // No number (`POWER(-7, 0.5)`, `SQRT(-1)`) is NULL, as N1QL says: a NaN compared as a
        // number made `1 BETWEEN POWER(-7, 0.5) AND 3` true.
        let result = unguardedMath(name, values)
        if case .double(let number) = result, number.isNaN { return .null }
        return result
    }

    private static func unguardedMath(_ name: String, _ values: [QueryValue]) -> QueryValue {
        guard let x = values[0].number else { return .null }
        let y = values.count > 1 ? values[1].number : nil
        if values.count > 1, y == nil { return .null }
        switch name {
        // A double, as 2.8 answers and like CEIL, FLOOR, ROUND, TRUNC: `TOSTRING(ABS(1))` is "1.0".
        case "ABS()": return .double(Swift.abs(x))
        case "CEIL()": return .double(x.rounded(.up))
        case "FLOOR()": return .double(x.rounded(.down))
        case "ROUND()", "TRUNC()":
            let scale = pow(10, y ?? 0)
            let rule: FloatingPointRoundingRule = name == "ROUND()" ? .toNearestOrAwayFromZero : .towardZero
            return .double((x * scale).rounded(rule) / scale)
        case "SQRT()": return .double(x.squareRoot())
        case "POWER()": return .double(pow(x, y ?? 1))
        case "SIGN()": return .int(x > 0 ? 1 : x < 0 ? -1 : 0)
        case "EXP()": return .double(exp(x))
        case "LN()": return .double(log(x))
        case "LOG()": return .double(log10(x))
        case "SIN()": return .double(sin(x))
        case "COS()": return .double(cos(x))
        case "TAN()": return .double(tan(x))
        case "ASIN()": return .double(asin(x))
        case "ACOS()": return .double(acos(x))
        case "ATAN()": return .double(atan(x))
        // ATAN2(a, b) is the arctangent of b/a, as N1QL defines it and 2.8 answers (Query-12).
        case "ATAN2()": return .double(atan2(y ?? 1, x))
        case "DEGREES()": return .double(x * 180 / Double.pi)
        case "RADIANS()": return .double(x * Double.pi / 180)
        default: return .null
        }
    }
}
