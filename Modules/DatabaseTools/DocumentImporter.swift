import Fleece
import Foundation
import LiteDatabase

/// Imports JSON documents into a database: a JSON Lines file, a file holding one JSON array of
/// objects, or a folder of `.json` files (one document each), in batched transactions.
///
/// Each document's ID is its `idKey` property (default `_id`), else the file name for a folder
/// entry, else a new random ID. `_id` itself is never stored in the body.
///
/// ```swift
/// let count = try DocumentImporter.importDocuments(into: core, from: "travel.jsonl")
/// ```
package enum DocumentImporter {
    /// Documents saved per transaction.
    package static let batchSize = 1_000

    /// One parsed input document.
    private struct Item {
        var body: FleeceDocument
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
        var saved = 0
        progress(ConversionProgress(phase: .importing, completed: 0, total: items.count))
        for start in stride(from: 0, to: items.count, by: batchSize) {
            let batch = items[start..<min(start + batchSize, items.count)]
            try DatabaseToolsError.wrapping(.ioFailure, "cannot import into \(core.bundle.path)") {
                try core.inTransaction {
                    for item in batch { try save(item, into: core, idKey: idKey) }
                }
            }
            saved += batch.count
            progress(ConversionProgress(phase: .importing, completed: saved, total: items.count))
        }
        return saved
    }

    private static func save(_ item: Item, into core: DatabaseCore, idKey: String) throws {
        guard let dict = item.body.root.dictionary else {
            throw DatabaseToolsError(.invalidArgument, "\(item.origin) is not a JSON object")
        }
        let id: String
        switch dict[idKey] {
        case let value? where value.type == .string: id = value.string ?? ""
        case let value? where value.type == .number: id = value.json()
        case nil: id = item.fallbackID ?? UUID().uuidString.lowercased()
        default: throw DatabaseToolsError(.invalidArgument, "\(item.origin): property \"\(idKey)\" is not a string")
        }
        try DatabaseToolsError.wrapping(.invalidArgument, "\(item.origin): cannot save document \"\(id)\"") {
            try core.saveRevision(id: id, base: nil, policy: .lastWriteWins) { encoder in
                encoder.beginDictionary(reservingCapacity: dict.count)
                for (key, value) in dict where key != "_id" {
                    encoder.writeKey(key)
                    encoder.writeValue(value)
                }
                encoder.endDictionary()
            }
        }
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
                return Item(body: try parse(try read(file), origin: file), fallbackID: String(name.dropLast(5)),
                            origin: file)
            }
        }
        let data = try read(path)
        let firstByte = data.first { ![0x20, 0x09, 0x0A, 0x0D].contains($0) }
        if firstByte == UInt8(ascii: "[") {
            let document = try parse(data, origin: path)
            guard let array = document.root.array else {
                throw DatabaseToolsError(.invalidArgument, "\(path) is not a JSON array")
            }
            return try array.enumerated().map { index, value in
                let origin = "\(path) element \(index + 1)"
                // Each element becomes its own document, so each gets its own Fleece copy.
                let bytes = try DatabaseToolsError.wrapping(.invalidArgument, "\(origin) cannot be read") {
                    try JSONConverter.fleece(fromJSON: value.json())
                }
                return Item(body: try FleeceDocument(bytes: bytes, trusted: true), fallbackID: nil, origin: origin)
            }
        }
        var items: [Item] = []
        var lineNumber = 0
        for line in data.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false) {
            lineNumber += 1
            guard line.contains(where: { ![0x20, 0x09, 0x0D].contains($0) }) else { continue }
            let origin = "\(path) line \(lineNumber)"
            items.append(Item(body: try parse(Data(line), origin: origin), fallbackID: nil, origin: origin))
        }
        return items
    }

    private static func read(_ path: String) throws -> Data {
        try DatabaseToolsError.wrapping(.ioFailure, "cannot read \(path)") {
            try Data(contentsOf: URL(fileURLWithPath: path))
        }
    }

    private static func parse(_ data: Data, origin: String) throws -> FleeceDocument {
        try DatabaseToolsError.wrapping(.invalidArgument, "\(origin) is not valid JSON") {
            let bytes = try data.withUnsafeBytes { try JSONConverter.fleece(fromJSONBytes: $0) }
            return try FleeceDocument(bytes: bytes, trusted: true)
        }
    }
}
