import DatabaseConversion
import Fleece
import FoundationEssentials
import LiteDatabase

/// Imports JSON documents into a database: a JSON Lines file, a file holding one JSON array of
/// objects, or a folder of `.json` files (one document each), in batched transactions.
///
/// Each document's ID is its `idKey` property (default `_id`), else the file name for a folder
/// entry, else a new random ID. The ID property is not stored in the body (as 2.8's `cblite cp`).
///
/// ```swift
/// let count = try DocumentImporter.importDocuments(into: core, from: "travel.jsonl")
/// ```
package enum DocumentImporter {
    /// Documents saved per transaction.
    package static let batchSize = 1_000

    /// The most documents the first transaction takes; the rest of a longer input is checked
    /// before it commits.
    package static let firstBatchLimit = 20_000

    /// Imports every document in the file or folder at `path`; returns how many were saved.
    /// Existing documents with the same ID get a new revision.
    ///
    /// An ``ImportEncodingStage`` on a second thread reads the input a block at a time and
    /// encodes each transaction's documents a chunk ahead of this thread storing them. The
    /// first transaction takes documents up to a limit and commits only once the whole input
    /// is known to be good (the stage checks the rest when the limit comes first), so bad input
    /// imports nothing.
    /// - Throws: `.notFound` for a missing input, `.invalidArgument` naming the line or file
    ///   that is not a JSON object or has an unusable ID, `.ioFailure` for a failed save.
    @discardableResult
    package static func importDocuments(into core: DatabaseCore, from path: String, idKey: String = "_id",
                                        progress: (ConversionProgress) -> Void = { _ in }) throws -> Int {
        let stage = ImportEncodingStage(path: path, idKey: idKey, sharedKeys: core.sharedKeys)
        defer { stage.stop() }
        var total: Int?
        var saved = 0
        var atEnd = false
        while !atEnd {
            try DatabaseToolsError.wrapping(.ioFailure, "cannot import into \(core.bundle.path)") {
                try core.inTransaction { _ in
                    // The stage must be idle before the transaction ends, whichever way.
                    defer { stage.settle() }
                    // A batch; the first transaction grows, a chunk at a time, up to its limit.
                    var allowed = batchSize
                    var count = 0
                    stage.allow(allowed)
                    while let chunk = stage.take() {
                        for document in chunk.documents {
                            try save(document, into: core)
                            count += 1
                        }
                        if let error = chunk.error { throw error }
                        if chunk.atEnd { atEnd = true }
                        if !chunk.atEnd, total == nil, allowed - count < 2 * ImportEncodingStage.chunkSize,
                           allowed < firstBatchLimit {
                            stage.allow(ImportEncodingStage.chunkSize)
                            allowed += ImportEncodingStage.chunkSize
                        }
                    }
                    if total == nil {
                        total = atEnd ? count : try stage.validateRest()
                        progress(ConversionProgress(phase: .importing, completed: 0, total: total ?? 0))
                    }
                    saved += count
                }
            }
            progress(ConversionProgress(phase: .importing, completed: saved, total: total ?? saved))
        }
        return saved
    }

    /// Checks that an item is a JSON object whose ID property, if any, is a string or number.
    static func checkDocument(_ item: ImportReader.Item, idKey: String) throws {
        guard item.json.first(where: { !ImportReader.isWhitespace($0) }) == UInt8(ascii: "{") else {
            throw notAnObject(item)
        }
        let (present, value) = try DatabaseToolsError.wrapping(.invalidArgument, "\(item.origin) is not valid JSON") {
            try item.json.withUnsafeBytes { try JSONConverter.topLevelValue(forKey: idKey, inJSON: $0) }
        }
        if present && value == nil { throw idNotAString(item, idKey) }
    }

    static func notAnObject(_ item: ImportReader.Item) -> DatabaseToolsError {
        DatabaseToolsError(.invalidArgument, "\(item.origin) is not a JSON object")
    }

    static func idNotAString(_ item: ImportReader.Item, _ idKey: String) -> DatabaseToolsError {
        DatabaseToolsError(.invalidArgument, "\(item.origin): property \"\(idKey)\" is not a string")
    }

    /// Stores one document the encoding stage prepared.
    private static func save(_ document: ImportEncodingStage.Document, into core: DatabaseCore) throws {
        try DatabaseToolsError.wrapping(.invalidArgument, "\(document.origin): cannot save document \"\(document.id)\"") {
            _ = try core.saveRevision(id: document.id, base: nil, policy: .lastWriteWins, encodedBody: document.body)
        }
    }

    /// The byte ranges of the elements of the JSON array `bytes` (already checked to be valid
    /// JSON), found by tracking nesting and strings: commas at depth 1 separate elements.
    static func topLevelElements(of bytes: [UInt8]) -> [Range<Int>] {
        var spans: [Range<Int>] = []
        var depth = 0
        var inString = false
        var escaped = false
        var start: Int?
        for index in bytes.indices {
            let byte = bytes[index]
            if inString {
                if escaped { escaped = false } else if byte == UInt8(ascii: "\\") { escaped = true } else if byte == UInt8(ascii: "\"") { inString = false }
                continue
            }
            switch byte {
            case UInt8(ascii: "\""):
                inString = true
                if depth == 1 && start == nil { start = index }
            case UInt8(ascii: "["), UInt8(ascii: "{"):
                if depth == 1 && start == nil { start = index }
                depth += 1
            case UInt8(ascii: "]"), UInt8(ascii: "}"):
                depth -= 1
                if depth == 0 {
                    if let first = start { spans.append(first..<index) }
                    return spans
                }
            case UInt8(ascii: ","):
                if depth == 1, let first = start {
                    spans.append(first..<index)
                    start = nil
                }
            default:
                if depth == 1 && start == nil && !ImportReader.isWhitespace(byte) { start = index }
            }
        }
        return spans
    }
}
