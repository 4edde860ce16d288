import Fleece

/// A query compiled from Couchbase Lite's JSON query syntax (the form the builder API emits).
package struct CompiledQuery: Sendable {
    /// A result column: its expression and its name.
    package struct Column: Sendable {
        package let expression: CompiledExpression
        package let name: String
    }

    /// A data source after the first: a join with another set of the database's documents,
    /// or an UNNEST of an array of the rows so far.
    package struct JoinedSource: Sendable {
        package enum Kind: Sendable {
            case inner, leftOuter, cross
            case unnest(CompiledExpression)
        }
        package let alias: String
        package let kind: Kind
        /// The ON condition of a join.
        package let on: CompiledExpression?
    }

    package var columns: [Column] = []
    /// The first data source's alias (properties name it or nothing).
    package var sourceAlias: String?
    /// The sources joined to the first, in order.
    package var joins: [JoinedSource] = []
    package var whereClause: CompiledExpression?
    package var groupBy: [CompiledExpression] = []
    package var having: CompiledExpression?
    package var orderBy: [(expression: CompiledExpression, descending: Bool)] = []
    package var limit: CompiledExpression?
    package var offset: CompiledExpression?
    package var distinct = false
    /// Whether the query asks about deleted documents (then it sees them too).
    package var testsDeletion = false
    /// Whether the query reads `._revisionID` (then the scan decodes each row's revision ID).
    package var readsRevisionID = false
    /// Whether the query reads `._sequence` or `._expiration` (else a scan need not read them).
    package var readsSequenceOrExpiration = false
    /// What its runs worked out before reading, for the next run (copies share it; the fields
    /// above are set once, by the compiler, before any run).
    private(set) var runCache = QueryRunCache()

    /// Every parameter the query uses (each must have a value before it runs).
    package var parameterNames: Set<String> {
        var expressions = columns.map(\.expression) + groupBy + orderBy.map(\.expression)
        expressions += [whereClause, having, limit, offset].compactMap { $0 }
        for join in joins {
            if let on = join.on { expressions.append(on) }
            if case .unnest(let array) = join.kind { expressions.append(array) }
        }
        return expressions.reduce(into: []) { $0.formUnion($1.parameterNames) }
    }

    /// The full-text indexes the query's `MATCH()`es search.
    package var fullTextIndexNames: Set<String> { Set((whereClause?.fullTextSearches ?? []).map(\.index)) }

    /// The column names, in order.
    package var columnNames: [String] { columns.map(\.name) }

    /// Compiles JSON query text.
    ///
    /// - Parameter databaseName: the name of the column `SELECT *` gives without an alias.
    /// - Throws: ``QueryError`` naming what is wrong and where.
    package init(json: String, databaseName: String) throws {
        let document: FleeceDocument
        do {
            document = try FleeceDocument(bytes: try JSONConverter.fleece(fromJSON: json))
        } catch {
            throw QueryError("the query is not valid JSON: \(error)")
        }
        var compiler = QueryCompiler(databaseName: databaseName)
        do {
            self = try compiler.compile(document.root)
        } catch where error is FleeceError {
            // A malformed property path (`".."`) fails in Fleece's path parser; callers are
            // promised a QueryError (found by the query fuzzer).
            throw QueryError("the query has an invalid property path: \(error)")
        }
    }

    init() {}
}
