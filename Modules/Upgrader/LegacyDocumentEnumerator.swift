import SQLiteStorage

/// Reads a 1.x database's migrated documents one at a time, in 1.x insertion order.
///
/// Made by ``LegacyDatabaseReader/makeDocumentEnumerator()``; documents whose ID starts with
/// `_` and documents with no revision at all are passed over.
///
/// ```swift
/// let documents = try reader.makeDocumentEnumerator()
/// while let document = try documents.next() { try save(document) }
/// ```
package final class LegacyDocumentEnumerator {
    private let reader: LegacyDatabaseReader
    private let statement: SQLiteStatement

    init(reader: LegacyDatabaseReader, statement: SQLiteStatement) {
        self.reader = reader
        self.statement = statement
    }

    /// The next document, or `nil` after the last one.
    ///
    /// - Throws: ``UpgraderError`` naming the document when its revision ID or body is invalid,
    ///   or when the database cannot be read.
    package func next() throws -> LegacyDocument? {
        while true {
            let row: (key: Int64, id: String)? = try reader.readFailure(while: "listing documents") {
                try statement.step() ? (statement.int64(0), statement.text(1)) : nil
            }
            guard let row else { return nil }
            // Underscore-prefixed IDs are design and other special documents in 1.x.
            if row.id.hasPrefix("_") { continue }
            if let document = try reader.readDocument(key: row.key, id: row.id) { return document }
        }
    }
}
