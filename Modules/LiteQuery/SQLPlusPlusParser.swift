import Fleece

/// Parses SQL++ (N1QL) query strings, as later Couchbase Lite versions accept them, into
/// Couchbase Lite's JSON query syntax — the one form the query engine compiles:
///
/// `SELECT [DISTINCT] results FROM source [AS alias] [[INNER|LEFT [OUTER]|CROSS] JOIN source [AS]
/// alias [ON e] | UNNEST e [AS] alias]… [WHERE e] [GROUP BY e, …] [HAVING e]
/// [ORDER BY e [ASC|DESC], …] [LIMIT e] [OFFSET e]`, with expressions of `OR AND NOT`,
/// comparisons, `[NOT] LIKE`, `[NOT] IN`, `[NOT] BETWEEN … AND …`, `IS [NOT] NULL|MISSING|VALUED`,
/// `+ - * / % ||`, literals, `$parameters`, `[arrays]`, function calls, `META([alias]).id`,
/// property paths (`` `quoted` `` names, `[index]`), `ANY|EVERY|ANY AND EVERY v IN e SATISFIES
/// c END`. Keywords are case-insensitive. Errors name the character position.
///
/// ```swift
/// let json = try SQLPlusPlusParser.json(from: "SELECT name FROM _ WHERE type = 'hotel' LIMIT 10")
/// ```
package struct SQLPlusPlusParser {
    private enum Token: Equatable {
        case word(String)          // identifiers and keywords (keywords compared upper-cased)
        case quoted(String)        // `quoted identifier`
        case string(String)
        case number(String)
        case parameter(String)
        case symbol(String)
        case end
    }

    private var tokens: [(token: Token, position: Int)] = []
    private var index = 0
    private var variables: [Set<String>] = []
    /// How deep the parse is in nested expressions (parentheses, arguments, `NOT`, unary `-`).
    private var depth = 0
    /// Deeper nesting is refused: the JSON it becomes would exceed the JSON parser's depth, and
    /// the recursion of an unbounded nesting would exhaust the stack (found by fuzzing).
    package static let maximumNesting = JSONConverter.defaultMaximumDepth

    /// The JSON query for `sql`.
    ///
    /// - Throws: ``QueryError`` naming the position of a syntax error.
    package static func json(from sql: String) throws -> String {
        var parser = SQLPlusPlusParser()
        parser.tokens = try Self.tokenize(Array(sql))
        return try parser.parseQuery()
    }

    // MARK: Tokens

    private static func tokenize(_ text: [Character]) throws -> [(token: Token, position: Int)] {
        var tokens: [(token: Token, position: Int)] = []
        var i = 0
        while i < text.count {
            let c = text[i]
            if c.isWhitespace { i += 1; continue }
            let start = i
            if c == "'" || c == "\"" {
                var value = ""
                i += 1
                while true {
                    guard i < text.count else { throw QueryError("the string starting here has no closing quote", at: "character \(start + 1)") }
                    if text[i] == c {
                        if i + 1 < text.count, text[i + 1] == c { value.append(c); i += 2; continue }
                        i += 1
                        break
                    }
                    value.append(text[i])
                    i += 1
                }
                tokens.append((.string(value), start))
            } else if c == "`" {
                var value = ""
                i += 1
                while i < text.count, text[i] != "`" { value.append(text[i]); i += 1 }
                guard i < text.count else { throw QueryError("the quoted name has no closing `", at: "character \(start + 1)") }
                i += 1
                tokens.append((.quoted(value), start))
            } else if c.isNumber || (c == "." && i + 1 < text.count && text[i + 1].isNumber) {
                var value = ""
                while i < text.count, text[i].isNumber || text[i] == "." || text[i] == "e" || text[i] == "E"
                        || ((text[i] == "-" || text[i] == "+") && (text[i - 1] == "e" || text[i - 1] == "E")) {
                    value.append(text[i])
                    i += 1
                }
                tokens.append((.number(value), start))
            } else if c == "$" {
                i += 1
                var name = ""
                while i < text.count, text[i].isLetter || text[i].isNumber || text[i] == "_" { name.append(text[i]); i += 1 }
                guard !name.isEmpty else { throw QueryError("a parameter needs a name after $", at: "character \(start + 1)") }
                tokens.append((.parameter(name), start))
            } else if c.isLetter || c == "_" {
                var word = ""
                while i < text.count, text[i].isLetter || text[i].isNumber || text[i] == "_" { word.append(text[i]); i += 1 }
                tokens.append((.word(word), start))
            } else {
                let two = i + 1 < text.count ? String([c, text[i + 1]]) : ""
                if ["<=", ">=", "!=", "<>", "==", "||"].contains(two) {
                    tokens.append((.symbol(two), start))
                    i += 2
                } else if "=<>+-*/%(),.[]{}:".contains(c) {
                    tokens.append((.symbol(String(c)), start))
                    i += 1
                } else {
                    throw QueryError("unexpected character \"\(c)\"", at: "character \(start + 1)")
                }
            }
        }
        tokens.append((.end, text.count))
        return tokens
    }

    private var current: Token { tokens[index].token }

    /// The token `offset` after the current one (`.end` past the end).
    private func peek(_ offset: Int) -> Token {
        index + offset < tokens.count ? tokens[index + offset].token : .end
    }

    private func error(_ expected: String) -> QueryError {
        let found: String
        switch current {
        case .end: found = "the end of the query"
        case .word(let word), .quoted(let word): found = "\"\(word)\""
        case .string(let text): found = "'\(text)'"
        case .number(let text): found = text
        case .parameter(let name): found = "$\(name)"
        case .symbol(let symbol): found = "\"\(symbol)\""
        }
        return QueryError("syntax error: expected \(expected), found \(found)", at: "character \(tokens[index].position + 1)")
    }

    private func isKeyword(_ keyword: String, offset: Int = 0) -> Bool {
        guard index + offset < tokens.count, case .word(let word) = tokens[index + offset].token else { return false }
        return word.uppercased() == keyword
    }

    private mutating func accept(_ keyword: String) -> Bool {
        guard isKeyword(keyword) else { return false }
        index += 1
        return true
    }

    private mutating func expect(_ keyword: String) throws {
        guard accept(keyword) else { throw error(keyword) }
    }

    private mutating func acceptSymbol(_ symbol: String) -> Bool {
        guard current == .symbol(symbol) else { return false }
        index += 1
        return true
    }

    private mutating func expectSymbol(_ symbol: String) throws {
        guard acceptSymbol(symbol) else { throw error("\"\(symbol)\"") }
    }

    private static let reserved: Set = ["SELECT", "DISTINCT", "FROM", "WHERE", "GROUP", "BY", "HAVING", "ORDER", "LIMIT",
                                        "OFFSET", "AS", "AND", "OR", "NOT", "LIKE", "IN", "BETWEEN", "IS", "ASC", "DESC",
                                        "ANY", "EVERY", "SATISFIES", "END", "JOIN", "ON", "INNER", "LEFT", "OUTER",
                                        "CROSS", "UNNEST", "CASE", "WHEN", "THEN", "ELSE"]

    // MARK: Query

    private mutating func parseQuery() throws -> String {
        try expect("SELECT")
        var parts: [String] = []
        if accept("DISTINCT") { parts.append(#""DISTINCT":true"#) }
        var results: [String] = []
        repeat { results.append(try parseResult()) } while acceptSymbol(",")
        try expect("FROM")
        guard case .word(let source) = current else { throw error("a data source (a database name or _)") }
        index += 1
        _ = source
        var alias: String?
        if accept("AS") {
            alias = try parseName("an alias")
        } else if case .word(let word) = current, !Self.reserved.contains(word.uppercased()) {
            alias = word
            index += 1
        }
        var sources: [String] = alias.map { [#"{"AS":"# + Self.jsonString($0) + "}"] } ?? ["{}"]
        while true {
            if accept("UNNEST") {
                let array = try parseExpression()
                _ = accept("AS")
                let name = try parseName("an alias for the UNNEST")
                sources.append(#"{"AS":"# + Self.jsonString(name) + #","UNNEST":"# + array + "}")
                continue
            }
            var kind: String?
            if accept("JOIN") { kind = "INNER" }
            else if accept("INNER") { try expect("JOIN"); kind = "INNER" }
            else if accept("LEFT") { _ = accept("OUTER"); try expect("JOIN"); kind = "LEFT OUTER" }
            else if accept("CROSS") { try expect("JOIN"); kind = "CROSS" }
            guard let kind else { break }
            guard case .word = current else { throw error("a data source to join") }
            index += 1
            _ = accept("AS")
            let name = try parseName("an alias for the joined data source")
            var source = #"{"AS":"# + Self.jsonString(name) + #","JOIN":"# + Self.jsonString(kind)
            if kind != "CROSS" {
                try expect("ON")
                source += #","ON":"# + (try parseExpression())
            }
            sources.append(source + "}")
        }
        if alias == nil, sources.count > 1 {
            throw QueryError("the first data source needs an alias when others are joined to it",
                             at: "character \(tokens[index - 1].position + 1)")
        }
        parts.append(#""WHAT":["# + results.joined(separator: ",") + "]")
        if alias != nil { parts.append(#""FROM":["# + sources.joined(separator: ",") + "]") }
        if accept("WHERE") { parts.append(#""WHERE":"# + (try parseExpression())) }
        if accept("GROUP") {
            try expect("BY")
            var items: [String] = []
            repeat { items.append(try parseExpression()) } while acceptSymbol(",")
            parts.append(#""GROUP_BY":["# + items.joined(separator: ",") + "]")
        }
        if accept("HAVING") { parts.append(#""HAVING":"# + (try parseExpression())) }
        if accept("ORDER") {
            try expect("BY")
            var items: [String] = []
            repeat {
                let expression = try parseExpression()
                if accept("DESC") { items.append(#"["DESC","# + expression + "]") } else { _ = accept("ASC"); items.append(expression) }
            } while acceptSymbol(",")
            parts.append(#""ORDER_BY":["# + items.joined(separator: ",") + "]")
        }
        if accept("LIMIT") { parts.append(#""LIMIT":"# + (try parseExpression())) }
        if accept("OFFSET") { parts.append(#""OFFSET":"# + (try parseExpression())) }
        guard current == .end else { throw error("the end of the query") }
        return "{" + parts.joined(separator: ",") + "}"
    }

    private mutating func parseResult() throws -> String {
        if acceptSymbol("*") { return #"["."]"# }
        if case .word(let name) = current, peek(1) == .symbol("."), peek(2) == .symbol("*") {
            index += 3
            return #"[""# + "." + Self.escape(name) + #""]"#
        }
        let expression = try parseExpression()
        if accept("AS") {
            return #"["AS","# + expression + "," + Self.jsonString(try parseName("a column name")) + "]"
        }
        if case .word(let word) = current, !Self.reserved.contains(word.uppercased()) {
            index += 1
            return #"["AS","# + expression + "," + Self.jsonString(word) + "]"
        }
        return expression
    }

    private mutating func parseName(_ what: String) throws -> String {
        switch current {
        case .word(let word): index += 1; return word
        case .quoted(let word): index += 1; return word
        default: throw error(what)
        }
    }

    // MARK: Expressions

    private mutating func parseExpression() throws -> String {
        try enterNesting()
        defer { depth -= 1 }
        return try parseOr()
    }

    /// Counts one level of nesting; throws past ``maximumNesting``.
    private mutating func enterNesting() throws {
        depth += 1
        guard depth <= Self.maximumNesting else {
            throw QueryError("expressions are nested more than \(Self.maximumNesting) levels deep",
                             at: "character \(tokens[index].position + 1)")
        }
    }

    private mutating func parseOr() throws -> String {
        var left = try parseAnd()
        while accept("OR") { left = #"["OR","# + left + "," + (try parseAnd()) + "]" }
        return left
    }

    private mutating func parseAnd() throws -> String {
        var left = try parseNot()
        while accept("AND") { left = #"["AND","# + left + "," + (try parseNot()) + "]" }
        return left
    }

    private mutating func parseNot() throws -> String {
        if accept("NOT") {
            try enterNesting()
            defer { depth -= 1 }
            return #"["NOT","# + (try parseNot()) + "]"
        }
        return try parseComparison()
    }

    private mutating func parseComparison() throws -> String {
        let left = try parseAdditive()
        for symbol in ["=", "==", "!=", "<>", "<=", ">=", "<", ">"] where acceptSymbol(symbol) {
            let op = symbol == "==" ? "=" : symbol == "<>" ? "!=" : symbol
            return "[" + Self.jsonString(op) + "," + left + "," + (try parseAdditive()) + "]"
        }
        let negated = accept("NOT")
        if accept("LIKE") {
            let like = #"["LIKE","# + left + "," + (try parseAdditive()) + "]"
            return negated ? #"["NOT","# + like + "]" : like
        }
        if accept("IN") {
            return "[" + (negated ? #""NOT IN""# : #""IN""#) + "," + left + "," + (try parseAdditive()) + "]"
        }
        if accept("BETWEEN") {
            let low = try parseAdditive()
            try expect("AND")
            let between = #"["BETWEEN","# + left + "," + low + "," + (try parseAdditive()) + "]"
            return negated ? #"["NOT","# + between + "]" : between
        }
        if negated { throw error("LIKE, IN or BETWEEN after NOT") }
        if accept("IS") {
            let not = accept("NOT")
            if accept("NULL") { return "[" + (not ? #""IS NOT""# : #""IS""#) + "," + left + ",null]" }
            if accept("MISSING") { return "[" + (not ? #""IS NOT""# : #""IS""#) + "," + left + #",["MISSING"]]"# }
            if accept("VALUED") {
                let valued = #"["IS VALUED","# + left + "]"
                return not ? #"["NOT","# + valued + "]" : valued
            }
            throw error("NULL, MISSING or VALUED")
        }
        return left
    }

    private mutating func parseAdditive() throws -> String {
        var left = try parseMultiplicative()
        while true {
            if acceptSymbol("+") { left = #"["+","# + left + "," + (try parseMultiplicative()) + "]" }
            else if acceptSymbol("-") { left = #"["-","# + left + "," + (try parseMultiplicative()) + "]" }
            else if acceptSymbol("||") { left = #"["||","# + left + "," + (try parseMultiplicative()) + "]" }
            else { return left }
        }
    }

    private mutating func parseMultiplicative() throws -> String {
        var left = try parseUnary()
        while true {
            if acceptSymbol("*") { left = #"["*","# + left + "," + (try parseUnary()) + "]" }
            else if acceptSymbol("/") { left = #"["/","# + left + "," + (try parseUnary()) + "]" }
            else if acceptSymbol("%") { left = #"["%","# + left + "," + (try parseUnary()) + "]" }
            else { return left }
        }
    }

    private mutating func parseUnary() throws -> String {
        if acceptSymbol("-") {
            try enterNesting()
            defer { depth -= 1 }
            return #"["-","# + (try parseUnary()) + "]"
        }
        return try parsePrimary()
    }

    private mutating func parsePrimary() throws -> String {
        switch current {
        case .number(let text):
            index += 1
            // A literal past Double's range (1e999) is no number either (the fuzzer found it
            // reaching the JSON, which no JSON reader takes).
            guard let value = Double(text), value.isFinite else {
                throw QueryError("\"\(text)\" is not a number", at: "character \(tokens[index - 1].position + 1)")
            }
            return Self.jsonNumber(text)
        case .string(let text):
            index += 1
            return Self.jsonString(text)
        case .parameter(let name):
            index += 1
            return #"["$"# + Self.escape(name) + #""]"#
        case .symbol("("):
            index += 1
            let inner = try parseExpression()
            try expectSymbol(")")
            return try parseSubpath(of: inner)
        case .symbol("["):
            index += 1
            var items: [String] = []
            if !acceptSymbol("]") {
                repeat { items.append(try parseExpression()) } while acceptSymbol(",")
                try expectSymbol("]")
            }
            return try parseSubpath(of: #"["[]""# + items.map { "," + $0 }.joined() + "]")
        case .symbol("{"):
            index += 1
            var entries: [String] = []
            if !acceptSymbol("}") {
                repeat {
                    let key: String
                    switch current {
                    case .string(let text), .word(let text), .quoted(let text): key = text; index += 1
                    default: throw error("a key (a string or a name)")
                    }
                    try expectSymbol(":")
                    entries.append(Self.jsonString(key) + ":" + (try parseExpression()))
                } while acceptSymbol(",")
                try expectSymbol("}")
            }
            return try parseSubpath(of: "{" + entries.joined(separator: ",") + "}")
        case .word(let word):
            switch word.uppercased() {
            case "TRUE": index += 1; return "true"
            case "FALSE": index += 1; return "false"
            case "NULL": index += 1; return "null"
            case "MISSING": index += 1; return #"["MISSING"]"#
            case "ANY", "EVERY": return try parseQuantified()
            case "CASE": return try parseCase()
            case "META": return try parseMeta()
            default: break
            }
            if peek(1) == .symbol("(") { return try parseSubpath(of: try parseCall(word)) }
            let isVariable = variables.contains { $0.contains(word) }
            if Self.reserved.contains(word.uppercased()), !isVariable { throw error("an expression") }
            return try parsePath()
        case .quoted:
            return try parsePath()
        default:
            throw error("an expression")
        }
    }

    private mutating func parseCall(_ name: String) throws -> String {
        index += 2
        var arguments: [String] = []
        // MATCH(index, 'text') and RANK(index) name the full-text index with a bare identifier.
        if ["MATCH", "RANK", "MATCH_OFFSETS"].contains(name.uppercased()), peek(1) == .symbol(",") || peek(1) == .symbol(")") {
            switch current {
            case .word(let index), .quoted(let index):
                self.index += 1
                arguments.append(Self.jsonString(index))
                if acceptSymbol(")") {
                    return "[" + Self.jsonString(name.uppercased() + "()") + "," + arguments[0] + "]"
                }
                try expectSymbol(",")
            default:
                break
            }
        }
        if arguments.isEmpty, acceptSymbol("*") {
            arguments.append(#"["."]"#)
            try expectSymbol(")")
        } else if !acceptSymbol(")") {
            repeat { arguments.append(try parseExpression()) } while acceptSymbol(",")
            try expectSymbol(")")
        }
        return "[" + Self.jsonString(name.uppercased() + "()") + arguments.map { "," + $0 }.joined() + "]"
    }

    private mutating func parseMeta() throws -> String {
        index += 1
        try expectSymbol("(")
        var alias: String?
        if !acceptSymbol(")") {
            alias = try parseName("a data source alias")
            try expectSymbol(")")
        }
        try expectSymbol(".")
        let property = try parseName("id, sequence, deleted or expiration")
        let key: String
        switch property.lowercased() {
        case "id": key = "_id"
        case "sequence": key = "_sequence"
        case "deleted": key = "_deleted"
        case "expiration": key = "_expiration"
        case "revisionid": key = "_revisionID"
        default: throw QueryError("META() has no property \"\(property)\"", at: "character \(tokens[index - 1].position + 1)")
        }
        return #"[""# + "." + (alias.map { Self.escape($0) + "." } ?? "") + key + #""]"#
    }

    private mutating func parseQuantified() throws -> String {
        var kind = accept("ANY") ? "ANY" : ""
        if kind.isEmpty {
            try expect("EVERY")
            kind = "EVERY"
        } else if isKeyword("AND"), isKeyword("EVERY", offset: 1) {
            index += 2
            kind = "ANY AND EVERY"
        }
        let variable = try parseName("a variable name")
        try expect("IN")
        let array = try parseAdditive()
        try expect("SATISFIES")
        variables.append([variable])
        let condition = try parseExpression()
        variables.removeLast()
        try expect("END")
        return "[" + Self.jsonString(kind) + "," + Self.jsonString(variable) + "," + array + "," + condition + "]"
    }

    /// `CASE [subject] WHEN … THEN … [ELSE …] END`, as `["CASE", subject or null, when, then, …, else]`.
    private mutating func parseCase() throws -> String {
        index += 1
        var parts = [isKeyword("WHEN") ? "null" : try parseExpression()]
        guard isKeyword("WHEN") else { throw error("WHEN") }
        while accept("WHEN") {
            parts.append(try parseExpression())
            try expect("THEN")
            parts.append(try parseExpression())
        }
        if accept("ELSE") { parts.append(try parseExpression()) }
        try expect("END")
        return #"["CASE","# + parts.joined(separator: ",") + "]"
    }

    /// `.name` and `[n]` after a literal, a call or a parenthesized expression: a property of its
    /// value (`["_.", expression, "path"]`).
    private mutating func parseSubpath(of expression: String) throws -> String {
        var path = ""
        while true {
            if current == .symbol("."), case .word = peek(1) {
                index += 1
                path += (path.isEmpty ? "" : ".") + Self.escapePathComponent(try parseName("a property"))
            } else if current == .symbol("."), case .quoted = peek(1) {
                index += 1
                path += (path.isEmpty ? "" : ".") + Self.escapePathComponent(try parseName("a property"))
            } else if current == .symbol("["), case .number(let number) = peek(1), peek(2) == .symbol("]") {
                index += 3
                path += "[\(number)]"
            } else {
                break
            }
        }
        if path.isEmpty { return expression }
        return #"["_.","# + expression + "," + Self.jsonString(path) + "]"
    }

    private mutating func parsePath() throws -> String {
        var path = Self.escapePathComponent(try parseName("a property"))
        let first = path
        while true {
            if current == .symbol("."), case .word = peek(1) {
                index += 1
                path += "." + Self.escapePathComponent(try parseName("a property"))
            } else if current == .symbol("."), case .quoted = peek(1) {
                index += 1
                path += "." + Self.escapePathComponent(try parseName("a property"))
            } else if current == .symbol("["), case .number(let number) = peek(1),
                      peek(2) == .symbol("]") {
                index += 3
                path += "[\(number)]"
            } else {
                break
            }
        }
        if variables.contains(where: { $0.contains(first) }) { return #"["?"# + Self.escape(path) + #""]"# }
        return #"[""# + "." + Self.escape(path) + #""]"#
    }

    // MARK: JSON text

    private static func escapePathComponent(_ name: String) -> String {
        name.replacing("\\", with: "\\\\").replacing(".", with: "\\.")
            .replacing("[", with: "\\[")
    }

    /// `text` escaped for the inside of a JSON string literal.
    private static func escape(_ text: String) -> String {
        String(JSONQuoting.quoted(text).dropFirst().dropLast())
    }

    private static func jsonString(_ text: String) -> String { JSONQuoting.quoted(text) }

    /// A number literal as JSON writes it: SQL++ (like Swift's `Double`) accepts `.5`, `5.`,
    /// `5.e2` and `007`, which are not JSON numbers (the fuzzer found `3.e2` passed through).
    static func jsonNumber(_ text: String) -> String {
        var mantissa = Substring(text), exponent = Substring("")
        if let marker = text.firstIndex(where: { $0 == "e" || $0 == "E" }) {
            mantissa = text[..<marker]
            exponent = text[marker...]
        }
        let parts = mantissa.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        let integer = parts[0].drop { $0 == "0" }
        var result = integer.isEmpty ? "0" : String(integer)
        if parts.count > 1 { result += "." + (parts[1].isEmpty ? "0" : parts[1]) }
        return result + exponent
    }
}
