import DatabaseConversion
import Fleece
import FoundationEssentials
import Glibc
import LiteDatabase
import LiteStorage

/// Exports a database's live documents as JSON Lines, one object per line in document-ID
/// order, each starting with its `"_id"`: the format ``DocumentImporter`` reads back.
///
/// Records are read where the storage engine lends them and written as JSON straight into a
/// 1 MiB buffer that goes to the file descriptor whole: no document objects, strings or line
/// copies per document.
package enum DocumentExporter {
    static let bufferSize = 1 << 20

    /// Passes the JSON Lines text to `write` in chunks of about 1 MiB (whole lines, each with
    /// its newline); returns the number of documents.
    @discardableResult
    package static func exportDocuments(of core: DatabaseCore,
                                        write: (UnsafeRawBufferPointer) throws -> Void) throws -> Int {
        try DatabaseToolsError.wrapping(.ioFailure, "cannot export \(core.bundle.path)") {
            let empty = try FleeceDocument(bytes: StoredDocument.emptyDictionary, trusted: true)
            let keys = FleeceKeyTable(core.sharedKeys)
            let borrowed = try empty.withUnsafeBytes { try FleeceDocument(borrowing: $0, keys: keys) }
            var out: [UInt8] = []
            out.reserveCapacity(bufferSize + 64 * 1024)
            var count = 0
            try core.documents.visitRecords(options: RecordEnumerationOptions(inKeyOrder: true)) { view in
                guard !view.flags.contains(.deleted) else { return true }
                out.append(contentsOf: #"{"_id":"#.utf8)
                JSONText.appendString(view.key, to: &out)
                if let body = try StoredDocument.currentBody(inRecordBody: view.body), body.count > 0 {
                    try borrowed.rebind(borrowing: body)
                    let start = out.count
                    borrowed.root.appendJSON(to: &out)
                    // The body's own `{`: replaced by the comma after the ID, or dropped with
                    // its `}` when the body is empty.
                    if out.count - start > 2 {
                        out[start] = UInt8(ascii: ",")
                    } else {
                        out.removeSubrange(start...)
                        out.append(UInt8(ascii: "}"))
                    }
                } else {
                    out.append(UInt8(ascii: "}"))
                }
                out.append(0x0A)
                count += 1
                if out.count >= bufferSize {
                    try out.withUnsafeBytes(write)
                    out.removeAll(keepingCapacity: true)
                }
                return true
            }
            if !out.isEmpty { try out.withUnsafeBytes(write) }
            return count
        }
    }

    /// Writes the JSON Lines to the file at `path` (replacing it), or to standard output when
    /// `path` is `-`; returns the document count.
    @discardableResult
    package static func exportDocuments(of core: DatabaseCore, toFile path: String) throws -> Int {
        let descriptor: Int32
        if path == "-" {
            descriptor = STDOUT_FILENO
        } else {
            descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
            guard descriptor >= 0 else {
                throw DatabaseToolsError(.ioFailure, "cannot create \(path): \(String(cString: strerror(errno)))")
            }
        }
        defer { if descriptor != STDOUT_FILENO { close(descriptor) } }
        return try exportDocuments(of: core) { chunk in
            guard var next = chunk.baseAddress else { return }
            var remaining = chunk.count
            while remaining > 0 {
                let written = Glibc.write(descriptor, next, remaining)
                if written < 0 {
                    if errno == EINTR { continue }
                    throw DatabaseToolsError(.ioFailure, "cannot write \(path == "-" ? "to standard output" : path): \(String(cString: strerror(errno)))")
                }
                next += written
                remaining -= written
            }
        }
    }
}
