import BlobStore
import DatabaseTools
import Fleece
import Foundation
import LiteDatabase
import LiteStorage
import TestSupport

/// A database exercising everything a conversion must keep: several revisions, a deletion, a
/// purge, an expiration, a conflict-free multi-generation tree, checkpoint and custom key
/// stores, a byte-key (index) store, and blobs.
enum RichDatabase {
    /// Builds it at `<directory>/<name>.cblite2` with `engine`; returns its location.
    static func make(_ engine: StorageEngineKind, in directory: TemporaryDirectory,
                     name: String = "rich") throws -> DatabaseLocation {
        let location = try DatabaseLocation(path: directory.appending("\(name).cblite2").path)
        let core = try location.open(.create(engine: engine.rawValue))
        defer { try? core.close() }
        let content = Data("blob content for \(name)".utf8)
        let blob = try core.blobStore.write(content)
        for index in 0..<50 {
            try save(core, "doc-\(index)", ["n": .int(index), "name": .string("document \(index)")])
        }
        try save(core, "doc-1", ["n": .int(1), "edited": .bool(true)])
        try save(core, "doc-1", ["n": .int(1), "edited": .bool(true), "again": .bool(true)])
        try save(core, "with-blob", ["file": .blob(blob.string, length: content.count)])
        if let current = try core.document(id: "doc-2")?.revisionID {
            try core.saveRevision(id: "doc-2", base: current, deleted: true, policy: .lastWriteWins) { _ in }
        }
        try core.purgeDocument(id: "doc-3")
        try core.setExpiration(id: "doc-4", to: 4_102_444_800_000)
        try core.inTransaction { txn in
            try core.dataFile.keyStore("checkpoints").set(Record(key: "cp-1", body: Array("{\"local\":7}".utf8)),
                                                          ifSequence: nil, in: txn)
            try core.dataFile.keyStore("peerCheckpoints").set(Record(key: "peer", body: [1, 2, 3]), ifSequence: nil, in: txn)
            let index = try core.dataFile.byteKeyStore("index_by_name")
            try index.put([0x01, 0xFF], [0x42], in: txn)
            try index.put([0x00], [], in: txn)
        }
        return location
    }

    enum Value {
        case int(Int), string(String), bool(Bool), blob(String, length: Int)
    }

    private static func save(_ core: DatabaseCore, _ id: String, _ properties: KeyValuePairs<String, Value>) throws {
        try core.saveRevision(id: id, base: try core.document(id: id)?.revisionID, policy: .lastWriteWins) { encoder in
            encoder.beginDictionary()
            for (key, value) in properties {
                encoder.writeKey(key)
                switch value {
                case .int(let number): encoder.writeInt(Int64(number))
                case .string(let text): encoder.writeString(text)
                case .bool(let flag): encoder.writeBool(flag)
                case .blob(let digest, let length):
                    encoder.beginDictionary()
                    encoder.writeKey("@type")
                    encoder.writeString("blob")
                    encoder.writeKey("digest")
                    encoder.writeString(digest)
                    encoder.writeKey("length")
                    encoder.writeInt(Int64(length))
                    encoder.endDictionary()
                }
            }
            encoder.endDictionary()
        }
    }

    /// Every record of every key store, and every byte-key entry, of the database's data file.
    static func contents(_ location: DatabaseLocation) throws -> [String: [String]] {
        guard let engine = location.engine else { return [:] }
        let file = try engine.open(at: engine.dataFilePath(inBundle: location.path), options: DataFileOptions(readOnly: true))
        defer { try? file.close() }
        var result: [String: [String]] = [:]
        for name in try file.keyStoreNames() {
            let store = try file.keyStore(name)
            var rows = ["counters \(try store.lastSequence()) \(try store.purgeCount())"]
            for record in try store.enumerate(since: 0, options: RecordEnumerationOptions(includeDeleted: true)).collect() {
                rows.append("\(record.sequence) \(record.key) \(record.flags.rawValue) \(record.version) "
                            + "\(record.body) \(record.expiration.map(String.init) ?? "-")")
            }
            result["kv:" + name] = rows
        }
        for name in try file.byteKeyStoreNames() {
            result["bk:" + name] = try file.byteKeyStore(name).scanAll().collect().map { "\($0.key)=\($0.value)" }
        }
        return result
    }
}
