import Fleece
import LiteDatabase
import LiteStorage
import LiteSupport

/// What a compiled query's last run worked out before reading, kept for its next run with the
/// same parameters while no index of the file was created or deleted: the plan, whether it
/// reads in ORDER BY's order, and whether the index's entries answer the query. Planning
/// compares the query's terms with every index's expressions and evaluates their constants;
/// for a query that reads ten rows through an index that was a seventh of its time.
///
/// Unchecked sendability: a kept plan or reader's parts are never changed once made (a coverage's
/// closures capture only constants), and the locks guard which are kept.
final class QueryRunCache: @unchecked Sendable {
    /// The decisions of one run.
    struct Planned {
        /// OFFSET + LIMIT when the first source's rows can be cut while they are read in order.
        let topN: Int?
        let plan: QueryPlanner.Plan
        /// With a top-N and an index plan that gives ORDER BY's order: whether to read it backwards.
        let backwards: Bool?
        /// For an index plan read in ID order: how its entries answer the query, if they can.
        let coverage: IndexCoverage?
        /// For an index plan: each range's entry keys (``ValueIndex/entryKeys(_:)``).
        let entryKeys: [ByteKeyRange]
        /// For an index plan: whether its one range fixes every expression of the index to one
        /// value (its entries then list each document once, in ID order).
        let fixesEveryExpression: Bool
        /// For a read in ORDER BY's order: whether ties can come out of document-ID order (read
        /// backwards, or the index has expressions past those fixed and ordered by).
        var exhaustive = true
    }

    private struct KeptPlan {
        let generation: UInt64
        let parameters: [String: QueryValue]
        let planned: Planned
    }

    private let kept = Locked<KeptPlan?>(nil)
    private let parameterNames = Locked<Set<String>?>(nil)
    private let keptReaderParts = Locked<PassingRowReader.Parts?>(nil)

    /// The plan for a run on a file whose indexers are at `generation`, with `parameters`:
    /// the last one when both are the same, else `make()`'s.
    func planned(generation: UInt64, parameters: [String: QueryValue], _ make: () throws -> Planned) rethrows -> Planned {
        if let last = kept.withLock({ $0 }), last.generation == generation, last.parameters == parameters {
            return last.planned
        }
        let planned = try make()
        kept.withLock { $0 = KeptPlan(generation: generation, parameters: parameters, planned: planned) }
        return planned
    }

    /// The first source's reader parts for `keys`: the last ones while the shared keys are
    /// unchanged (the parts resolved the query's property names against them), else `make`'s.
    func readerParts(keys: FleeceKeyTable, _ make: (FleeceKeyTable) -> PassingRowReader.Parts) -> PassingRowReader.Parts {
        if let last = keptReaderParts.withLock({ $0 }), last.keys.resolvesAlike(keys) { return last }
        let parts = make(keys)
        keptReaderParts.withLock { $0 = parts }
        return parts
    }

    /// The query's parameter names, found once.
    func parameterNames(_ find: () -> Set<String>) -> Set<String> {
        if let names = parameterNames.withLock({ $0 }) { return names }
        let names = find()
        parameterNames.withLock { $0 = names }
        return names
    }
}
