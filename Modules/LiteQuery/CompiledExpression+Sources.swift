import Fleece

extension CompiledExpression {
    /// Whether the expression reads any of `aliases` (joined sources; the first source is
    /// never among them).
    func reads(anyOf aliases: Set<String>) -> Bool {
        switch self {
        case .property(let alias, _), .meta(let alias, _):
            return alias.map(aliases.contains) ?? false
        case .call(_, let operands): return operands.contains { $0.reads(anyOf: aliases) }
        case .quantified(_, _, let array, let condition): return array.reads(anyOf: aliases) || condition.reads(anyOf: aliases)
        case .collate(_, _, let inner): return inner.reads(anyOf: aliases)
        case .literal, .parameter, .variable: return false
        }
    }

    /// Whether every document property and metadata it reads belongs to source `alias`, so its
    /// value depends on that source's document alone (no full-text function, whose answer is
    /// the first source's).
    func readsOnly(alias: String) -> Bool {
        switch self {
        case .property(let source, _), .meta(let source, _): return source == alias
        case .call(let name, let operands):
            return name != "MATCH()" && name != "RANK()" && name != "MATCH_OFFSETS()"
                && operands.allSatisfy { $0.readsOnly(alias: alias) }
        case .quantified(_, _, let array, let condition): return array.readsOnly(alias: alias) && condition.readsOnly(alias: alias)
        case .collate(_, _, let inner): return inner.readsOnly(alias: alias)
        case .literal, .parameter, .variable: return true
        }
    }

    /// Whether the expression reads a document property (any source's, the whole document
    /// included), as opposed to metadata, constants and variables alone.
    var readsProperties: Bool {
        switch self {
        case .property: return true
        case .call("COUNT()", let operands) where operands.count == 1:
            // COUNT(*) counts rows; it reads no document.
            if case .property(_, let path) = operands[0], path.isEmpty { return false }
            return operands[0].readsProperties
        case .call(_, let operands): return operands.contains { $0.readsProperties }
        case .quantified(_, _, let array, let condition): return array.readsProperties || condition.readsProperties
        case .collate(_, _, let inner): return inner.readsProperties
        case .literal, .parameter, .variable, .meta: return false
        }
    }

    /// Adds to `paths` each property path of the first source (`alias` nil or `sourceAlias`)
    /// the expression reads; false when it reads that source's whole document.
    func collectPaths(ofSource sourceAlias: String?, into paths: inout [[FleecePath.Component]]) -> Bool {
        collectPaths(of: { $0 == nil || $0 == sourceAlias }, into: &paths)
    }

    /// Adds to `paths` each property path of the joined source `alias` the expression reads;
    /// false when it reads that source's whole document.
    func collectPaths(ofJoined alias: String, into paths: inout [[FleecePath.Component]]) -> Bool {
        collectPaths(of: { $0 == alias }, into: &paths)
    }

    private func collectPaths(of source: (String?) -> Bool, into paths: inout [[FleecePath.Component]]) -> Bool {
        switch self {
        case .property(let alias, let path):
            guard source(alias) else { return true }
            if path.isEmpty { return false }
            if !paths.contains(path) { paths.append(path) }
            return true
        case .call("COUNT()", let operands) where operands.count == 1:
            // COUNT(*) counts rows; it reads no document.
            if case .property(_, let path) = operands[0], path.isEmpty { return true }
            return operands[0].collectPaths(of: source, into: &paths)
        case .call(_, let operands):
            for operand in operands where !operand.collectPaths(of: source, into: &paths) { return false }
            return true
        case .quantified(_, _, let array, let condition):
            return array.collectPaths(of: source, into: &paths) && condition.collectPaths(of: source, into: &paths)
        case .collate(_, _, let inner):
            return inner.collectPaths(of: source, into: &paths)
        case .literal, .parameter, .variable, .meta:
            return true
        }
    }

    /// The terms of an AND (the expression itself when it is not one).
    var conjuncts: [CompiledExpression] {
        if case .call("AND", let operands) = self { return operands.flatMap(\.conjuncts) }
        return [self]
    }

    /// The AND of `terms` (nil for none).
    static func and(_ terms: [CompiledExpression]) -> CompiledExpression? {
        switch terms.count {
        case 0: return nil
        case 1: return terms[0]
        default: return .call("AND", terms)
        }
    }
}
