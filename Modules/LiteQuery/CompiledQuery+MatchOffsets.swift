import LiteText

extension CompiledQuery {
    /// Whether a result column or sort key asks for `MATCH_OFFSETS()` (so the executor keeps
    /// each hit's offsets only when they are used).
    var usesMatchOffsets: Bool {
        (columns.map(\.expression) + orderBy.map(\.expression)).contains(where: \.usesMatchOffsets)
    }
}

extension CompiledExpression {
    fileprivate var usesMatchOffsets: Bool {
        switch self {
        case .call("MATCH_OFFSETS()", _): return true
        case .call(_, let operands): return operands.contains(where: \.usesMatchOffsets)
        case .quantified(_, _, let array, let condition): return array.usesMatchOffsets || condition.usesMatchOffsets
        case .collate(_, _, let inner): return inner.usesMatchOffsets
        default: return false
        }
    }
}

extension QueryValue {
    /// `MATCH_OFFSETS(index)` of each hit, by document ID: an array with one object per matched
    /// word, in property then text order — `{"property": path, "start": byte offset, "length":
    /// bytes}`, offsets in the property's UTF-8 text, as FTS4's `offsets()` counts them.
    static func matchOffsets(of hits: [FullTextHit], properties: [String]) -> [String: QueryValue] {
        var byDocument: [String: QueryValue] = [:]
        for hit in hits {
            byDocument[hit.documentID] = .array(hit.offsets.map { offset in
                let property = offset.column < properties.count ? properties[offset.column] : ""
                return .dictionary(["property": .string(property), "start": .int(Int64(offset.byteRange.lowerBound)),
                                    "length": .int(Int64(offset.byteRange.count))])
            })
        }
        return byDocument
    }
}
