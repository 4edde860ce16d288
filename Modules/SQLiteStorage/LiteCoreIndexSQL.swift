import FoundationEssentials

/// The parts of a LiteCore `CREATE INDEX` statement the engine needs: the SQL of each indexed
/// expression, whether the index is partial, and — when every expression is a plain
/// `fl_value(body, 'path')`, as LiteCore 2.x writes a value index on properties — the
/// equivalent expression list in Couchbase Lite's JSON query syntax (`[[".path"], …]`).
///
/// Files from before Couchbase Lite 2.5 have no `indexes` table, so their SQL is the only
/// record of an index's definition.
struct LiteCoreIndexSQL: Equatable {
    /// The SQL of each indexed expression, in order, as written in the statement.
    let columns: [String]
    /// Whether the statement has a `WHERE` clause (a partial index).
    let isPartial: Bool

    /// Parses `CREATE [UNIQUE] INDEX … ON table (expr, …) [WHERE …]`; nil when `sql` is not
    /// shaped like that.
    init?(_ sql: String) {
        let characters = Array(sql.unicodeScalars)
        var quote: Unicode.Scalar?
        var depth = 0
        var start: Int?
        var columns: [String] = []
        var end: Int?
        var index = 0
        while index < characters.count, end == nil {
            let character = characters[index]
            if let open = quote {
                // A doubled quote inside a quoted run is an escaped quote.
                if character == Self.closing(open) {
                    if index + 1 < characters.count, characters[index + 1] == character, open != "[" {
                        index += 1
                    } else {
                        quote = nil
                    }
                }
            } else if ["'", "\"", "`", "["].contains(character) {
                quote = character
            } else if character == "(" {
                depth += 1
                if depth == 1 { start = index + 1 }
            } else if character == ")" {
                depth -= 1
                if depth == 0, let first = start {
                    columns.append(Self.text(characters[first..<index]))
                    end = index
                }
                if depth < 0 { return nil }
            } else if character == ",", depth == 1, let first = start {
                columns.append(Self.text(characters[first..<index]))
                start = index + 1
            }
            index += 1
        }
        guard let end, quote == nil, !columns.contains(where: \.isEmpty) else { return nil }
        self.columns = columns
        let rest = Self.text(characters[(end + 1)...]).uppercased()
        isPartial = rest.hasPrefix("WHERE")
    }

    /// The expressions in Couchbase Lite's JSON query syntax, or nil when one of them is not
    /// a plain property (`fl_value(body, 'path')`) or the index is partial.
    var jsonExpression: String? {
        guard !isPartial else { return nil }
        var items: [String] = []
        for column in columns {
            guard let path = Self.propertyPath(column) else { return nil }
            items.append("[" + Self.jsonString("." + path) + "]")
        }
        return "[" + items.joined(separator: ",") + "]"
    }

    /// The path of `fl_value(body, 'path')` (SQL quoting undone), or nil for anything else.
    static func propertyPath(_ column: String) -> String? {
        var rest = Substring(column.trimmingSpaces)
        guard rest.lowercased().hasPrefix("fl_value") else { return nil }
        rest = rest.dropFirst("fl_value".count).drop(while: \.isWhitespace)
        guard rest.first == "(", rest.last == ")" else { return nil }
        rest = rest.dropFirst().dropLast()
        guard let comma = rest.firstIndex(of: ",") else { return nil }
        let body = rest[..<comma].trimmingSpaces
        guard ["body", "\"body\""].contains(body.lowercased()) else { return nil }
        let literal = Substring(rest[rest.index(after: comma)...].trimmingSpaces)
        guard literal.count >= 2, literal.first == "'", literal.last == "'" else { return nil }
        let inner = literal.dropFirst().dropLast()
        // Inside, quotes come doubled; a lone one would end the literal early.
        var path = ""
        var iterator = inner.makeIterator()
        while let character = iterator.next() {
            if character == "'" {
                guard iterator.next() == "'" else { return nil }
            }
            path.append(character)
        }
        return path.isEmpty ? nil : path
    }

    /// The statement LiteCore 2.8 writes for value index `name` on `table` over plain
    /// properties (`[[".a"],[".b"]]` → `CREATE INDEX "name" ON "table" (fl_value(body, 'a'),
    /// fl_value(body, 'b'))`), or nil when `jsonExpression` is anything else.
    static func createStatement(name: String, table: String, jsonExpression: String) -> String? {
        // Anything but a list of lists of strings is not such an expression.
        guard let items = try? JSONDecoder().decode([[String]].self, from: Data(jsonExpression.utf8)), // allowed: not JSON means no statement
              !items.isEmpty else { return nil }
        var columns: [String] = []
        for operands in items {
            guard operands.count == 1, let property = operands.first,
                  property.hasPrefix("."), property.count > 1 else { return nil }
            let path = property.dropFirst().replacing("'", with: "''")
            columns.append("fl_value(body, '\(path)')")
        }
        let quote = { (identifier: String) in "\"" + identifier.replacing("\"", with: "\"\"") + "\"" }
        return "CREATE INDEX \(quote(name)) ON \(quote(table)) (\(columns.joined(separator: ", ")))"
    }

    private static func closing(_ open: Unicode.Scalar) -> Unicode.Scalar { open == "[" ? "]" : open }

    private static func text(_ scalars: ArraySlice<Unicode.Scalar>) -> String {
        var string = String.UnicodeScalarView()
        string.append(contentsOf: scalars)
        return String(string).trimmingSpaces
    }

    /// `text` as a JSON string literal.
    private static func jsonString(_ text: String) -> String {
        var json = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": json += "\\\""
            case "\\": json += "\\\\"
            case "\n": json += "\\n"
            case "\r": json += "\\r"
            case "\t": json += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                json += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: json.unicodeScalars.append(scalar)
            }
        }
        return json + "\""
    }
}

extension StringProtocol {
    /// Without leading and trailing whitespace.
    fileprivate var trimmingSpaces: String {
        String(drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace).reversed())
    }
}
