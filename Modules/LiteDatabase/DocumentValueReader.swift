import Fleece
import LiteStorage
import LiteSupport

/// Reads values out of the documents store's records for the storage engine's SQL functions
/// (the `RecordValueReader` a `DatabaseCore` opens its file with): decodes the revision tree,
/// takes the current revision's Fleece body, evaluates the key path, and answers as
/// Couchbase Lite's `fl_value` does — arrays, dictionaries and data re-encoded with the
/// database's shared keys.
final class DocumentValueReader: RecordValueReader {
    private struct State {
        var sharedKeys: SharedKeys?
        var paths: [String: FleecePath] = [:]
    }
    private let state = Locked(State())

    /// Gives the reader the database's key table (known only once the file is open).
    func attach(_ sharedKeys: SharedKeys) {
        state.withLock { $0.sharedKeys = sharedKeys }
    }

    func value(atPath path: String?, inRecordBody body: UnsafeRawBufferPointer?) throws -> StoredScalar {
        let sharedKeys = state.withLock { $0.sharedKeys }
        var current = StoredDocument.emptyDictionary
        if let body, !body.isEmpty {
            let tree = try RevisionTree(encoded: Array(body), recordSequence: 0)
            if let revisionBody = tree.current?.body, !revisionBody.isEmpty { current = revisionBody }
        }
        let document = try FleeceDocument(bytes: current, sharedKeys: sharedKeys, trusted: true)
        var value: FleeceValue? = document.root
        if let path, !path.isEmpty {
            value = try keyPath(path).evaluate(on: document.root)
        }
        return try Self.scalar(value, sharedKeys: sharedKeys)
    }

    /// Parsed paths are kept: an index evaluates the same few paths for every row.
    private func keyPath(_ text: String) throws -> FleecePath {
        if let cached = state.withLock({ $0.paths[text] }) { return cached }
        let parsed = try FleecePath(text)
        state.withLock { state in
            if state.paths.count > 256 { state.paths.removeAll() }
            state.paths[text] = parsed
        }
        return parsed
    }

    static func scalar(_ value: FleeceValue?, sharedKeys: SharedKeys?) throws -> StoredScalar {
        guard let value, !value.isUndefined else { return .missing }
        switch value.type {
        case .null: return .null
        case .boolean: return .bool(value.bool)
        case .number:
            if value.isInteger { return value.isUnsigned ? .unsigned(value.uint64) : .int(value.int64) }
            return .double(value.double)
        case .string: return .text(value.string ?? "")
        case .data, .array, .dictionary:
            let encoder = FleeceEncoder(sharedKeys: sharedKeys)
            encoder.writeValue(value)
            return .encoded(try encoder.finish())
        case .undefined: return .missing
        }
    }
}
