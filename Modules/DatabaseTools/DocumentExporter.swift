import Foundation
import LiteDatabase
import LiteStorage

/// Exports a database's live documents as JSON Lines, one object per line in document-ID
/// order, each starting with its `"_id"`: the format ``DocumentImporter`` reads back.
package enum DocumentExporter {
    /// Calls `line` with each document's JSON (without the newline); returns how many there were.
    @discardableResult
    package static func exportDocuments(of core: DatabaseCore, line: (String) throws -> Void) throws -> Int {
        try DatabaseToolsError.wrapping(.ioFailure, "cannot export \(core.bundle.path)") {
            let cursor = try core.documents.enumerate(options: RecordEnumerationOptions())
            defer { cursor.close() }
            var count = 0
            while let record = try cursor.next() {
                let document = try StoredDocument(record: record)
                guard let body = try document.body(sharedKeys: core.sharedKeys) else { continue }
                try line(JSONFormatting.withMeta(body.root, id: document.id, rev: nil))
                count += 1
            }
            return count
        }
    }

    /// Writes the JSON Lines to the file at `path` (replacing it); returns the document count.
    @discardableResult
    package static func exportDocuments(of core: DatabaseCore, toFile path: String) throws -> Int {
        guard FileManager.default.createFile(atPath: path, contents: nil) else {
            throw DatabaseToolsError(.ioFailure, "cannot create \(path)")
        }
        guard let handle = FileHandle(forWritingAtPath: path) else {
            throw DatabaseToolsError(.ioFailure, "cannot write \(path)")
        }
        defer { try? handle.close() }
        var buffer = Data()
        let count = try exportDocuments(of: core) { json in
            buffer.append(contentsOf: json.utf8)
            buffer.append(0x0A)
            if buffer.count >= 1 << 20 {
                try handle.write(contentsOf: buffer)
                buffer.removeAll(keepingCapacity: true)
            }
        }
        try DatabaseToolsError.wrapping(.ioFailure, "cannot write \(path)") { try handle.write(contentsOf: buffer) }
        return count
    }
}
