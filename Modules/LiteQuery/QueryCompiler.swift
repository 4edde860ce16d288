import Fleece

/// Turns Couchbase Lite's JSON query syntax into a ``CompiledQuery``.
struct QueryCompiler {
    let databaseName: String
    private var sourceAlias: String?
    /// The aliases of the joined sources (the first source's is `sourceAlias`).
    private var aliases: Set<String> = []
    private var unnamedColumns = 0
    private var testsDeletion = false
    private var readsRevisionID = false
    private var readsSequenceOrExpiration = false

    init(databaseName: String) { self.databaseName = databaseName }

    mutating func compile(_ root: FleeceValue) throws -> CompiledQuery {
        var query = CompiledQuery()
        guard let select = root.dictionary else {
            // A bare expression is the WHERE of `SELECT ._id, ._sequence`.
            query.whereClause = try expression(root, at: "WHERE")
            query.columns = [.init(expression: .meta(alias: nil, key: "_id"), name: "id"),
                             .init(expression: .meta(alias: nil, key: "_sequence"), name: "sequence")]
            query.testsDeletion = testsDeletion
            query.readsRevisionID = readsRevisionID
            query.readsSequenceOrExpiration = true
            return query
        }
        var entries: [String: FleeceValue] = [:]
        for (key, value) in select { entries[key.uppercased()] = value }
        let known: Set = ["WHAT", "FROM", "WHERE", "GROUP_BY", "HAVING", "ORDER_BY", "LIMIT", "OFFSET", "DISTINCT"]
        if let unknown = entries.keys.first(where: { !known.contains($0) }) {
            throw QueryError("unknown query clause \"\(unknown)\"", at: unknown)
        }
        if let from = entries["FROM"] {
            guard let sources = from.array else { throw QueryError("FROM must be an array", at: "FROM") }
            // Every alias is known before any ON or UNNEST expression is compiled.
            var items: [[String: FleeceValue]] = []
            for (index, source) in sources.enumerated() {
                guard let dictionary = source.dictionary else {
                    throw QueryError("a data source must be an object like {\"AS\": \"name\"}", at: "FROM[\(index)]")
                }
                var item: [String: FleeceValue] = [:]
                for (key, value) in dictionary { item[key.uppercased()] = value }
                if let unknown = item.keys.first(where: { !["AS", "ON", "JOIN", "UNNEST", "COLLECTION", "SCOPE"].contains($0) }) {
                    throw QueryError("unknown data source key \"\(unknown)\"", at: "FROM[\(index)]")
                }
                if let alias = item["AS"], alias.string == nil {
                    throw QueryError("AS must be a string", at: "FROM[\(index)]")
                }
                if index > 0 {
                    guard let alias = item["AS"]?.string, !alias.isEmpty else {
                        throw QueryError("a joined data source needs an alias (AS)", at: "FROM[\(index)]")
                    }
                    guard !aliases.contains(alias), alias != query.sourceAlias else {
                        throw QueryError("the alias \"\(alias)\" is used twice", at: "FROM[\(index)]")
                    }
                    aliases.insert(alias)
                } else {
                    query.sourceAlias = item["AS"]?.string
                    sourceAlias = query.sourceAlias
                }
                items.append(item)
            }
            for (index, item) in items.enumerated().dropFirst() {
                let location = "FROM[\(index)]"
                let alias = item["AS"]?.string ?? ""
                if let unnest = item["UNNEST"] {
                    guard item["ON"] == nil, item["JOIN"] == nil else {
                        throw QueryError("UNNEST takes no ON or JOIN", at: location)
                    }
                    query.joins.append(.init(alias: alias, kind: .unnest(try expression(unnest, at: location + ".UNNEST")), on: nil))
                    continue
                }
                let joinType = (item["JOIN"]?.string ?? "INNER").uppercased()
                let kind: CompiledQuery.JoinedSource.Kind
                switch joinType {
                case "INNER": kind = .inner
                case "LEFT", "LEFT OUTER": kind = .leftOuter
                case "CROSS": kind = .cross
                default: throw QueryError("unknown join type \"\(joinType)\" (INNER, LEFT OUTER or CROSS)", at: location)
                }
                let on = try item["ON"].map { try expression($0, at: location + ".ON") }
                if case .cross = kind {
                    if on != nil { throw QueryError("a CROSS join takes no ON condition", at: location) }
                } else if on == nil {
                    throw QueryError("a \(joinType) join needs an ON condition", at: location)
                }
                query.joins.append(.init(alias: alias, kind: kind, on: on))
            }
        }
        if let whereValue = entries["WHERE"] { query.whereClause = try expression(whereValue, at: "WHERE") }
        if let what = entries["WHAT"] {
            guard let items = what.array else { throw QueryError("WHAT must be an array", at: "WHAT") }
            for (index, item) in items.enumerated() {
                query.columns.append(try column(item, at: "WHAT[\(index)]", sourceAlias: query.sourceAlias))
            }
        } else {
            query.columns = [.init(expression: .meta(alias: nil, key: "_id"), name: "id"),
                             .init(expression: .meta(alias: nil, key: "_sequence"), name: "sequence")]
            readsSequenceOrExpiration = true
        }
        if let groupBy = entries["GROUP_BY"] {
            guard let items = groupBy.array else { throw QueryError("GROUP_BY must be an array", at: "GROUP_BY") }
            query.groupBy = try items.enumerated().map { try expression($1, at: "GROUP_BY[\($0)]", bareStringIsProperty: true) }
        }
        if let having = entries["HAVING"] {
            guard !query.groupBy.isEmpty else { throw QueryError("HAVING needs GROUP_BY", at: "HAVING") }
            query.having = try expression(having, at: "HAVING")
        }
        if let orderBy = entries["ORDER_BY"] {
            guard let items = orderBy.array else { throw QueryError("ORDER_BY must be an array", at: "ORDER_BY") }
            for (index, item) in items.enumerated() {
                let location = "ORDER_BY[\(index)]"
                if let array = item.array, let op = array[0]?.string?.uppercased(), op == "DESC" || op == "ASC" {
                    guard array.count == 2, let inner = array[1] else { throw QueryError("\(op) takes one expression", at: location) }
                    query.orderBy.append((try expression(inner, at: location, bareStringIsProperty: true), op == "DESC"))
                } else {
                    query.orderBy.append((try expression(item, at: location, bareStringIsProperty: true), false))
                }
            }
        }
        // ORDER BY (and HAVING) may name a result column by its alias.
        let aliased = Dictionary(query.columns.map { ($0.name, $0.expression) }, uniquingKeysWith: { first, _ in first })
        query.orderBy = query.orderBy.map { item in
            if case .property(nil, let path) = item.expression, path.count == 1, case .key(let key) = path[0],
               let column = aliased[key], !isPlainProperty(column, named: key) {
                return (column, item.descending)
            }
            return item
        }
        if let limit = entries["LIMIT"] { query.limit = try expression(limit, at: "LIMIT") }
        if let offset = entries["OFFSET"] { query.offset = try expression(offset, at: "OFFSET") }
        if let distinct = entries["DISTINCT"] { query.distinct = distinct.bool }
        query.testsDeletion = testsDeletion
        query.readsRevisionID = readsRevisionID
        query.readsSequenceOrExpiration = readsSequenceOrExpiration
        return query
    }

    private mutating func column(_ item: FleeceValue, at location: String, sourceAlias: String?) throws -> CompiledQuery.Column {
        if let array = item.array, array[0]?.string?.uppercased() == "AS" {
            guard array.count == 3, let inner = array[1], let name = array[2]?.string else {
                throw QueryError("AS takes an expression and a name", at: location)
            }
            return .init(expression: try expression(inner, at: location + "[1]"), name: name)
        }
        let compiled = try expression(item, at: location, bareStringIsProperty: true)
        if case .property(let alias, let path) = compiled, path.isEmpty {
            return .init(expression: compiled, name: alias ?? sourceAlias ?? databaseName)
        }
        if let name = compiled.columnName { return .init(expression: compiled, name: name) }
        unnamedColumns += 1
        return .init(expression: compiled, name: "$\(unnamedColumns)")
    }

    /// Compiles one expression node.
    mutating func expression(_ node: FleeceValue, at location: String, bareStringIsProperty: Bool = false) throws
        -> CompiledExpression {
        switch node.type {
        case .null: return .literal(.null)
        case .boolean: return .literal(.bool(node.bool))
        case .number: return .literal(QueryValue(node))
        case .string:
            let text = node.string ?? ""
            return bareStringIsProperty ? try property(text.hasPrefix(".") ? text : "." + text, at: location) : .literal(.string(text))
        case .dictionary:
            var pairs: [(String, CompiledExpression)] = []
            guard let dictionary = node.dictionary else { throw QueryError("unreadable dictionary", at: location) }
            for (key, value) in dictionary {
                pairs.append((key, try expression(value, at: "\(location).\(key)")))
            }
            return .call("{}", pairs.sorted { $0.0 < $1.0 }.flatMap { [CompiledExpression.literal(.string($0.0)), $0.1] })
        case .array:
            guard let array = node.array else { throw QueryError("unreadable array", at: location) }
            return try operation(array, at: location)
        default:
            throw QueryError("unsupported value in the query", at: location)
        }
    }

    private mutating func operation(_ array: FleeceArray, at location: String) throws -> CompiledExpression {
        guard let first = array[0], let op = first.string else {
            throw QueryError("an operation must start with its name", at: location)
        }
        let operands = (1..<array.count).compactMap { array[$0] }
        if op.hasPrefix("_.") { return try objectProperty(op, operands, at: location) }
        if op.hasPrefix(".") { return try property(op, extra: operands, at: location) }
        if op.hasPrefix("$") {
            let name = op == "$" ? (operands.first?.string ?? "") : String(op.dropFirst())
            guard !name.isEmpty else { throw QueryError("a parameter needs a name", at: location) }
            return .parameter(name)
        }
        if op.hasPrefix("?") {
            // `["?x"]`, `["?x.a"]`, `["?x", "a", "b"]` or `["?", "x", "a"]`: the operands after
            // the name extend the path, as for properties.
            let name = op == "?" ? Self.path(operands.first?.string ?? "", extendedBy: operands.dropFirst())
                                 : Self.path(String(op.dropFirst()), extendedBy: operands[...])
            let parts = try FleecePath(name).components
            guard case .key(let variable)? = parts.first else { throw QueryError("bad variable \"\(name)\"", at: location) }
            return .variable(variable, path: Array(parts.dropFirst()))
        }
        var name = op.uppercased()
        if name == "MATCH" || name == "RANK" || name == "MATCH_OFFSETS" { name += "()" }   // 2.8 spells them without parentheses
        let arguments = try operands.enumerated().map { try expression($1, at: "\(location)[\($0 + 1)]") }
        switch name {
        case "ANY", "EVERY", "ANY AND EVERY":
            guard operands.count == 3, let variable = operands[0].string else {
                throw QueryError("\(name) takes a variable name, an array and a condition", at: location)
            }
            return .quantified(name, variable: variable, array: arguments[1], condition: arguments[2])
        case "COLLATE":
            guard operands.count == 2, let options = operands[0].dictionary else {
                throw QueryError("COLLATE takes options and an expression", at: location)
            }
            var flags: [String: Bool] = [:]
            for (key, value) in options { flags[key.uppercased()] = value.bool }
            return .collate(ignoreCase: flags["CASE"] == false, ignoreAccents: flags["DIAC"] == false, arguments[1])
        case "MISSING":
            return .literal(.missing)
        case "CASE":
            return try caseExpression(operands, arguments, at: location)
        case "+", "*", "||":
            // 2.8 takes up to nine operands and adds (multiplies, joins) them left to right.
            try QueryFunctions.checkArity(name, count: arguments.count, at: location)
            return arguments.dropFirst(2).reduce(.call(name, Array(arguments.prefix(2)))) { .call(name, [$0, $1]) }
        case "[]":
            return .call("[]", arguments)
        case "IS" where arguments.count == 2 && arguments[1] == .literal(.null):
            // N1QL's IS [NOT] NULL: MISSING for a missing operand (as 2.8 answers too), not an
            // identity test between MISSING and NULL.
            return .call("IS NULL", [arguments[0]])
        case "IS NOT" where arguments.count == 2 && arguments[1] == .literal(.null):
            return .call("IS NOT NULL", [arguments[0]])
        default:
            try QueryFunctions.checkArity(name, count: arguments.count, at: location)
            return .call(name, arguments)
        }
    }

    /// `["_.", expr, "a.b"]` or `["_.a.b", expr]`: a property path into the value of any
    /// expression (the path as a literal array of keys and indexes, walked at run time).
    private mutating func objectProperty(_ op: String, _ operands: [FleeceValue], at location: String) throws
        -> CompiledExpression {
        let pathText: String
        if op == "_." {
            guard operands.count == 2, let text = operands[1].string else {
                throw QueryError("\"_.\" takes an expression and a property path string", at: location)
            }
            pathText = text
        } else {
            guard operands.count == 1 else { throw QueryError("\"\(op)\" takes one expression", at: location) }
            pathText = String(op.dropFirst(2))
        }
        let components: [FleecePath.Component]
        do {
            components = try FleecePath(pathText).components
        } catch {
            throw QueryError("bad property path \"\(pathText)\": \(error)", at: location)
        }
        let target = try expression(operands[0], at: "\(location)[1]")
        let path = components.map { component -> QueryValue in
            switch component {
            case .key(let key): return .string(key)
            case .index(let index): return .int(Int64(index))
            }
        }
        return .call("_.", [target, .literal(.array(path))])
    }

    /// `["CASE", subject-or-null, when, then, …, else?]`: simple when the subject is not null
    /// (each `when` compared to it with `=`), searched otherwise (each `when` a condition).
    private func caseExpression(_ operands: [FleeceValue], _ arguments: [CompiledExpression], at location: String) throws
        -> CompiledExpression {
        guard arguments.count >= 3 else {
            throw QueryError("CASE takes a subject (or null), then WHEN/THEN pairs and an optional ELSE", at: location)
        }
        if operands[0].type == .null { return .call("CASE WHEN", Array(arguments.dropFirst())) }
        return .call("CASE", arguments)
    }

    /// `start` followed by one key per string operand (its dots escaped: an operand is one key)
    /// and `[n]` per `[n]` operand, as a path string.
    private static func path(_ start: String, extendedBy extra: ArraySlice<FleeceValue>) -> String {
        var path = start
        for component in extra {
            if let key = component.string { path += (path.isEmpty ? "" : ".") + key.replacing(".", with: "\\.") }
            else if let index = component.array?[0]?.int64 { path += "[\(index)]" }
        }
        return path
    }

    private mutating func property(_ text: String, extra: [FleeceValue] = [], at location: String) throws -> CompiledExpression {
        // `[".", "a", "b"]` or `[".a.b"]`; `._id` and friends are metadata.
        let path = Self.path(String(text.dropFirst()), extendedBy: extra[...])
        if path.isEmpty { return .property(alias: nil, path: []) }
        var components: [FleecePath.Component]
        do {
            components = try FleecePath(path).components
        } catch {
            throw QueryError("bad property path \"\(path)\": \(error)", at: location)
        }
        // `.alias.key` names a data source first; the first source is `alias: nil`.
        var alias: String?
        if case .key(let first)? = components.first {
            if let sourceAlias, first == sourceAlias {
                components.removeFirst()
                if components.isEmpty { return .property(alias: sourceAlias, path: []) }
            } else if aliases.contains(first) {
                components.removeFirst()
                alias = first
                if components.isEmpty { return .property(alias: first, path: []) }
            }
        }
        let metaKeys: Set = ["_id", "_sequence", "_deleted", "_expiration", "_revisionID"]
        if case .key(let first)? = components.first, metaKeys.contains(first), components.count == 1 {
            if first == "_deleted", alias == nil { testsDeletion = true }
            if first == "_revisionID" { readsRevisionID = true }
            if first == "_sequence" || first == "_expiration" { readsSequenceOrExpiration = true }
            return .meta(alias: alias, key: first)
        }
        return .property(alias: alias, path: components)
    }

    /// Whether `expression` is just the property `name` (then ordering by it is the same either way).
    private func isPlainProperty(_ expression: CompiledExpression, named name: String) -> Bool {
        if case .property(_, let path) = expression, path.count == 1, case .key(let key) = path[0] { return key == name }
        return false
    }
}
