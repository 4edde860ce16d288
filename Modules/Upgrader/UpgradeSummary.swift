/// What an upgrade copied and what it had to leave behind, for the log and for tools.
package struct UpgradeSummary: Sendable, Hashable {
    /// The 1.x bundle that was read.
    package var sourcePath: String
    /// The 2.x bundle written.
    package var destinationPath: String
    /// The storage engine of the new database (`"SQLite"`, `"RocksDB"`).
    package var engineName: String
    /// The 1.x schema version (`PRAGMA user_version`).
    package var schemaVersion: Int
    /// Documents copied (deleted ones included).
    package var documentCount = 0
    /// Documents not copied because their ID starts with `_` (design documents and the like).
    package var skippedDocumentIDs: [String] = []
    /// Attachment files copied into the new blob store (each digest once).
    package var copiedBlobCount = 0
    /// Attachments whose file was not in the 1.x `attachments/` folder, as `(document ID,
    /// digest)`: the stub stays in the body but `Blob.content` will be nil. LiteCore skips
    /// these silently; they are reported here.
    package var missingAttachments: [MissingAttachment] = []

    /// An attachment the upgrade could not copy, and why.
    package struct MissingAttachment: Sendable, Hashable {
        /// The document whose `_attachments` names it.
        package var documentID: String
        /// The attachment's name in `_attachments`.
        package var name: String
        /// Its digest as in the body (`sha1-…`), or `nil` when the entry has none.
        package var digest: String?
        /// Why it was not copied (no file, unreadable digest, content not matching the digest).
        package var reason: String

        /// Creates an entry.
        package init(documentID: String, name: String, digest: String?, reason: String) {
            self.documentID = documentID
            self.name = name
            self.digest = digest
            self.reason = reason
        }
    }

    /// Creates an empty summary for an upgrade from `sourcePath` to `destinationPath`.
    package init(sourcePath: String, destinationPath: String, engineName: String, schemaVersion: Int) {
        self.sourcePath = sourcePath
        self.destinationPath = destinationPath
        self.engineName = engineName
        self.schemaVersion = schemaVersion
    }
}
