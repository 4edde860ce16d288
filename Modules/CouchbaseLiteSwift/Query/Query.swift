import LiteQuery
import LiteSupport

/// A query: made with ``QueryBuilder``, from JSON (`Database.createQuery(json:)`), or from a
/// SQL++ string (`Database.createQuery(_:)`); run with ``execute()``.
public class Query: @unchecked Sendable {
    // Unchecked only because Swift checks no non-final class: every stored property is a `let`
    // of a Sendable type (`State` too, behind its lock), and `QueryStep` adds none.
    let parts: QueryParts
    /// The database the query reads (nil until `from` names it).
    let database: Database?
    /// The query's JSON text, when it was given as JSON.
    let givenJSON: String?

    struct State: Sendable {
        var parameters: Parameters?
        /// The compiled form, made at the first run: the text never changes, and compiling it
        /// again cost a fifth of a small indexed query's run.
        var compiled: CompiledQuery?
    }
    let state = Locked(State())

    init(_ parts: QueryParts, database: Database? = nil) {
        self.parts = parts
        self.database = database
        givenJSON = nil
    }

    init(json: String, database: Database) {
        parts = QueryParts()
        self.database = database
        givenJSON = json
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

    /// The builder's query in Couchbase Lite's JSON query syntax.
    var node: QueryNode { parts.node }

    /// The query as Couchbase Lite's JSON query text.
    public var jsonRepresentation: String { givenJSON ?? node.json }
}
