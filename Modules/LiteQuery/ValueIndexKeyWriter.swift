import Fleece
import LiteDatabase

/// Writes a value index's entry keys (``ValueIndex``'s tag, the ``IndexKey`` of its expressions'
/// values, the document ID) from a document's lent body: plain property paths are encoded
/// straight from the body's bytes (``LentPropertyPath/appendIndexKey(in:to:)``), other
/// expressions, and values that are arrays, objects or data, through the evaluator. An index
/// build writes every document's key into one buffer this way, and a save its old and new keys,
/// with no value or array made per property.
///
/// The paths are resolved against the shared keys as they are when it is made: make one per
/// build or per change, never keep one across transactions (shared keys can be added or reverted).
struct ValueIndexKeyWriter {
    private let expressions: [CompiledExpression]
    private let paths: [LentPropertyPath?]
    private let keys: FleeceKeyTable
    private let evaluator = QueryEvaluator(parameters: [:])
    /// The documents the evaluator reads, made at their first use: one rebound to each body,
    /// one of an empty dictionary.
    private var lent: FleeceDocument?
    private var empty: FleeceDocument?

    init(expressions: [CompiledExpression], sharedKeys: SharedKeys?) {
        self.expressions = expressions
        keys = FleeceKeyTable(sharedKeys)
        paths = expressions.map { [keys] in LentPropertyPath($0, keys: keys) }
    }

    /// Appends the entry key of the document `id` whose current body is `body` (empty: an empty
    /// dictionary) to `out`, and returns true; when its first expression is MISSING it appends
    /// nothing and returns false (such a document has no entry).
    mutating func append(body: UnsafeRawBufferPointer, id: UnsafeRawBufferPointer, tag: UInt8,
                         to out: inout [UInt8]) throws -> Bool {
        let root = body.count > 0 ? try FleeceLentValue(rootOf: body) : nil
        let start = out.count
        out.append(tag)
        var document: FleeceDocument?
        var firstMissing = false
        for index in expressions.indices {
            let missing: Bool
            if let path = paths[index], let root, let read = path.appendIndexKey(in: root, to: &out) {
                missing = read
            } else {
                if document == nil { document = try lentDocument(body) }
                let row = QueryRow(id: String(decoding: id, as: UTF8.self), sequence: 0, isDeleted: false,
                                   expiration: nil, body: document)
                let value = try evaluator.evaluate(expressions[index], row)
                missing = value == .missing
                IndexKey.append(value, to: &out)
            }
            if index == 0 { firstMissing = missing }
        }
        guard !firstMissing else {
            out.removeSubrange(start...)
            return false
        }
        out.append(contentsOf: id)
        return true
    }

    /// The document reading `body` (an empty dictionary when it is empty), valid while `body` is.
    private mutating func lentDocument(_ body: UnsafeRawBufferPointer) throws -> FleeceDocument {
        guard body.count > 0 else {
            if let empty { return empty }
            let made = try FleeceDocument(bytes: StoredDocument.emptyDictionary, trusted: true)
            empty = made
            return made
        }
        if let lent {
            try lent.rebind(borrowing: body)
            return lent
        }
        let made = try FleeceDocument(borrowing: body, keys: keys)
        lent = made
        return made
    }
}
