extension QueryPlanner {
    /// The `MATCH(index, text)` that is one of WHERE's ANDed terms, if any: its index's hits are
    /// then the only documents that can pass, so the query reads just those (by ID) instead of
    /// scanning. The first such term when there are several.
    static func fullTextDriver(_ whereClause: CompiledExpression?) -> (index: String, text: String)? {
        for term in whereClause?.conjuncts ?? [] {
            if case .call("MATCH()", let operands) = term, operands.count == 2,
               case .literal(.string(let index)) = operands[0], case .literal(.string(let text)) = operands[1] {
                return (index, text)
            }
        }
        return nil
    }
}
