import Fleece
import Foundation
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

    /// One input document: its JSON text, kept as text so it is encoded once, in its own key
    /// order (as Couchbase Lite does, so revision IDs match).
    private struct Item {
        var json: ArraySlice<UInt8>
        var fallbackID: String?
        var origin: String
    }

    /// Imports every document in the file or folder at `path`; returns how many were saved.
    /// Existing documents with the same ID get a new revision.
    /// - Throws: `.notFound` for a missing input, `.invalidArgument` naming the line or file
    ///   that is not a JSON object or has an unusable ID, `.ioFailure` for a failed save.
    @discardableResult
    package static func importDocuments(into core: DatabaseCore, from path: String, idKey: String = "_id",
                                        progress: (ConversionProgress) -> Void = { _ in }) throws -> Int {
        let items = try readItems(path)
        // Check every document (syntax, object, ID) before the first write, so bad input
        // imports nothing.
        let ids = try items.map { try documentID(of: $0, idKey: idKey) }
        var saved = 0
        progress(ConversionProgress(phase: .importing, completed: 0, total: items.count))
        for start in stride(from: 0, to: items.count, by: batchSize) {
            let range = start..<min(start + batchSize, items.count)
            try DatabaseToolsError.wrapping(.ioFailure, "cannot import into \(core.bundle.path)") {
                try core.inTransaction {
                    for index in range { try save(items[index], id: ids[index].id, idKey: ids[index].fromProperty ? idKey : nil, into: core) }
                }
            }
            saved += range.count
            progress(ConversionProgress(phase: .importing, completed: saved, total: items.count))
        }
        return saved
    }

    private static func documentID(of item: Item, idKey: String) throws -> (id: String, fromProperty: Bool) {
        guard item.json.first(where: { !isWhitespace($0) }) == UInt8(ascii: "{") else {
            throw DatabaseToolsError(.invalidArgument, "\(item.origin) is not a JSON object")
        }
        let (present, value) = try DatabaseToolsError.wrapping(.invalidArgument, "\(item.origin) is not valid JSON") {
            try item.json.withUnsafeBytes { try JSONConverter.topLevelValue(forKey: idKey, inJSON: $0) }
        }
        if let value { return (value, true) }
        if present {
            throw DatabaseToolsError(.invalidArgument, "\(item.origin): property \"\(idKey)\" is not a string")
        }
        return (item.fallbackID ?? UUID().uuidString.lowercased(), false)
    }

    /// Saves one document. When its ID came from a property, the body is made as Couchbase
    /// Lite 2.8's `cblite cp` makes it, so revision IDs match the real tool's on the same file:
    /// the whole object is encoded (its ID key joins the shared keys like any other key), then
    /// copied without that key, entries in stored order.
    private static func save(_ item: Item, id: String, idKey: String?, into core: DatabaseCore) throws {
        try DatabaseToolsError.wrapping(.invalidArgument, "\(item.origin): cannot save document \"\(id)\"") {
            try core.saveRevision(id: id, base: nil, policy: .lastWriteWins) { encoder in
                guard let idKey else {
                    try item.json.withUnsafeBytes { _ = try JSONConverter.write(json: $0, to: encoder, skipping: ["_id"]) }
                    return
                }
                let whole = try item.json.withUnsafeBytes {
                    try JSONConverter.fleece(fromJSONBytes: $0, sharedKeys: core.sharedKeys)
                }
                let document = try FleeceDocument(bytes: whole, sharedKeys: core.sharedKeys, trusted: true)
                encoder.writeDictionary(document.root, omitting: idKey)
            }
        }
    }

    @inline(__always)
    private static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }

    private static func readItems(_ path: String) throws -> [Item] {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw DatabaseToolsError(.notFound, "no file or folder at \(path)")
        }
        if isDirectory.boolValue {
            let names = try DatabaseToolsError.wrapping(.ioFailure, "cannot list \(path)") {
                try FileManager.default.contentsOfDirectory(atPath: path)
            }
            return try names.filter { $0.hasSuffix(".json") }.sorted().map { name in
                let file = (path as NSString).appendingPathComponent(name)
                return Item(json: ArraySlice(try read(file)), fallbackID: String(name.dropLast(5)), origin: file)
            }
        }
        let bytes = [UInt8](try read(path))
        if bytes.first(where: { !isWhitespace($0) }) == UInt8(ascii: "[") {
            let document = try DatabaseToolsError.wrapping(.invalidArgument, "\(path) is not valid JSON") {
                try bytes.withUnsafeBytes { try FleeceDocument(bytes: try JSONConverter.fleece(fromJSONBytes: $0), trusted: true) }
            }
            guard let array = document.root.array else {
                throw DatabaseToolsError(.invalidArgument, "\(path) is not a JSON array")
            }
            // Each element becomes its own document, taken as its own span of the text so its
            // keys keep their text order (the parse above has checked the syntax).
            let spans = topLevelElements(of: bytes)
            guard spans.count == array.count else {
                throw DatabaseToolsError(.invalidArgument, "\(path) is not a JSON array")
            }
            return spans.enumerated().map { index, span in
                Item(json: bytes[span], fallbackID: nil, origin: "\(path) element \(index + 1)")
            }
        }
        // JSON Lines: find the newlines with memchr rather than a byte-by-byte generic split.
        var items: [Item] = []
        var lineNumber = 0
        var start = 0
        bytes.withUnsafeBytes { buffer in
            guard let base = buffer.baseAddress else { return }
            while start <= buffer.count {
                lineNumber += 1
                let remaining = buffer.count - start
                let found = remaining > 0 ? memchr(base + start, 0x0A, remaining) : nil
                let end = found.map { base.distance(to: UnsafeRawPointer($0)) } ?? buffer.count
                if bytes[start..<end].contains(where: { !isWhitespace($0) }) {
                    items.append(Item(json: bytes[start..<end], fallbackID: nil, origin: "\(path) line \(lineNumber)"))
                }
                start = end + 1
            }
        }
        return items
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
                if depth == 1 && start == nil && !isWhitespace(byte) { start = index }
            }
        }
        return spans
    }

    private static func read(_ path: String) throws -> Data {
        try DatabaseToolsError.wrapping(.ioFailure, "cannot read \(path)") {
            try Data(contentsOf: URL(fileURLWithPath: path))
        }
    }

}
