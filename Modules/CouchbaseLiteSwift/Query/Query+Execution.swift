import Fleece
import LiteDatabase
import LiteQuery

extension Query {
    /// Runs the query and returns its rows.
    ///
    /// - Throws: `CouchbaseLiteError` `.invalidQuery` naming what is wrong and where (an unknown
    ///   function, a wrong argument count, a bad property path, a parameter without a value),
    ///   or the database's error.
    public func execute() throws -> ResultSet {
        let (columns, rows) = try runRows()
        return ResultSet(columnNames: columns, rows: rows)
    }

    /// A description of how the query runs: its JSON form and the plan (a full scan, or
    /// which index with which bounds).
    public func explain() throws -> String {
        let (compiled, database) = try compile()
        let plan = try CouchbaseLiteError.wrapping {
            try QueryExecutor.explain(compiled, in: database.core, parameters: try parameterValues())
        }
        return "\(jsonRepresentation)\nplan: \(plan); columns: " + compiled.columnNames.joined(separator: ", ")
    }

    func compile() throws -> (CompiledQuery, Database) {
        guard let database else {
            throw CouchbaseLiteError(.invalidQuery, "the query has no data source: add .from(DataSource.database(db))")
        }
        if let compiled = state.withLock({ $0.compiled }) { return (compiled, database) }
        if givenJSON == nil, let reason = node.invalidReason { throw CouchbaseLiteError(.invalidQuery, reason) }
        let compiled = try CouchbaseLiteError.wrapping {
            try CompiledQuery(json: jsonRepresentation, databaseName: database.name)
        }
        state.withLock { $0.compiled = compiled }
        return (compiled, database)
    }

    func parameterValues() throws -> [String: QueryValue] {
        var values: [String: QueryValue] = [:]
        for (name, node) in parameters?.nodes ?? [:] {
            if let reason = node.invalidReason { throw CouchbaseLiteError(.invalidQuery, "parameter \(name): \(reason)") }
            let document: FleeceDocument
            do {
                document = try FleeceDocument(bytes: try JSONConverter.fleece(fromJSON: "[" + node.json + "]"))
            } catch {
                throw CouchbaseLiteError(.invalidQuery, "parameter \(name) cannot be used in a query", underlying: error)
            }
            var value = QueryValue(document.root.array?[0])
            if case .array(let items) = value, case .string("[]")? = items.first { value = .array(Array(items.dropFirst())) }
            values[name] = value
        }
        return values
    }

    /// Runs the query: its column names and rows.
    func runRows() throws -> ([String], [[QueryValue]]) {
        let (compiled, database) = try compile()
        let values = try parameterValues()
        Database.log.log(.verbose, .query, "Running query \(jsonRepresentation) on \"\(database.name)\": "
                         + "full scan, columns \(compiled.columnNames.joined(separator: ", "))")
        return try CouchbaseLiteError.wrapping {
            (compiled.columnNames, try QueryExecutor.run(compiled, in: database.core, parameters: values))
        }
    }
}

extension Database {
    /// A query in Couchbase Lite's JSON query syntax (`{"WHAT": …, "WHERE": …}`), the form the
    /// builder compiles to.
    ///
    /// - Throws: `.invalidQuery` when the text is not JSON.
    public func createQuery(json: String) throws -> Query {
        let bytes = Array(json.utf8)
        do {
            try bytes.withUnsafeBytes { try JSONConverter.validate(json: $0) }
        } catch {
            throw CouchbaseLiteError(.invalidQuery, "the query is not valid JSON", underlying: error)
        }
        return Query(json: json, database: self)
    }

    /// A query from a SQL++ (N1QL) string, as later Couchbase Lite versions accept them:
    ///
    /// ```swift
    /// let query = try database.createQuery("SELECT name FROM _ WHERE type = 'hotel' ORDER BY name LIMIT 10")
    /// ```
    ///
    /// - Throws: `.invalidQuery` naming the position of a syntax error.
    public func createQuery(_ query: String) throws -> Query {
        Query(json: try CouchbaseLiteError.wrapping { try SQLPlusPlusParser.json(from: query) }, database: self)
    }
}
