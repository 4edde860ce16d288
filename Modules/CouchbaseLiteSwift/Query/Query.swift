import LiteSupport

/// A query: made with ``QueryBuilder``, from JSON (`Database.createQuery(json:)`), or from a
/// SQL++ string (`Database.createQuery(_:)`); run with ``execute()``.
public class Query: @unchecked Sendable {
    // @unchecked: `parts` and `database` never change; `state` is behind its lock.
    let parts: QueryParts
    /// The database the query reads (nil until `from` names it).
    let database: Database?
    /// The query in Couchbase Lite's JSON syntax, when it was given as JSON or SQL++.
    let givenNode: QueryNode?

    private struct State {
        var parameters: Parameters?
    }
    private let state = Locked(State())

    init(_ parts: QueryParts, database: Database? = nil) {
        self.parts = parts
        self.database = database
        givenNode = nil
    }

    init(node: QueryNode, database: Database) {
        parts = QueryParts()
        self.database = database
        givenNode = node
    }

    /// A copy of this query's parts changed by `change` (for the builder's next step).
    func parts(_ change: (inout QueryParts) -> Void) -> QueryParts {
        var copy = parts
        change(&copy)
        return copy
    }

    /// Values for the query's parameters; set before ``execute()`` (a live query re-runs with
    /// the new values).
    public var parameters: Parameters? {
        get { state.withLock { $0.parameters } }
        set { state.withLock { $0.parameters = newValue.map { Parameters(parameters: $0) } } }
    }

    /// The query in Couchbase Lite's JSON query syntax (what ``explain()`` starts from).
    var node: QueryNode { givenNode ?? parts.node }

    /// The query as Couchbase Lite's JSON query text.
    public var jsonRepresentation: String { node.json }
}
