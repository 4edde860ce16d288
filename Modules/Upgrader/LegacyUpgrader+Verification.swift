import BlobStore
import Fleece
import FoundationEssentials
import LiteDatabase

extension LegacyUpgrader {
    /// Reopens the new database and checks it holds exactly what the 1.x one does: the same
    /// number of documents, and for each its deleted state, history (as far as the 2.x tree
    /// keeps it), a body equal to the 1.x JSON, and every attachment that was copied.
    func verify(_ bundle: DatabaseBundle, against reader: LegacyDatabaseReader, summary: UpgradeSummary) throws {
        let core = try DatabaseCore(bundle: bundle, registry: registry, engineName: nil, create: false,
                                    encryptionKey: encryptionKey)
        defer { try? core.close() }  // allowed: opened only to check the new database; a failed check has thrown already
        let source = reader.bundleURL.path
        func mismatch(_ problem: String, _ documentID: String? = nil) -> UpgraderError {
            UpgraderError(.upgradeFailed, "cannot upgrade the 1.x database at \(source): the new database "
                + "failed its check (\(problem)); the 1.x database was not changed",
                path: source, documentID: documentID)
        }
        let stored = try core.documents.recordCount(includeDeleted: true)
        guard stored == summary.documentCount else {
            throw mismatch("it holds \(stored) documents where \(summary.documentCount) were copied")
        }
        let maximumDepth = try core.maxRevTreeDepth()
        let missing = Set(summary.missingAttachments.compactMap(\.digest))
        var checked = 0
        let documents = try reader.makeDocumentEnumeratorInImportOrder()
        while let legacy = try documents.next() {
            checked += 1
            guard let document = try core.document(id: legacy.id) else {
                throw mismatch("document \"\(legacy.id)\" is missing", legacy.id)
            }
            guard document.isDeleted == legacy.isDeleted else {
                throw mismatch("document \"\(legacy.id)\" has the wrong deleted state", legacy.id)
            }
            let history = document.tree.history(from: 0).map { LegacyRevisionID(generation: $0.id.generation, digest: $0.id.digest) }
            // The 2.x tree is pruned to its maximum depth, so only the newest part must match.
            guard legacy.history.starts(with: history),
                  history.count >= min(legacy.history.count, maximumDepth) else {
                throw mismatch("document \"\(legacy.id)\" has history \(history) instead of \(legacy.history)", legacy.id)
            }
            let original = try legacy.body.withUnsafeBytes { try JSONConverter.fleece(fromJSONBytes: $0) }
            let body = try document.body(sharedKeys: core.sharedKeys)
                ?? FleeceDocument(bytes: StoredDocument.emptyDictionary)
            guard body.root.isEqual(to: try FleeceDocument(bytes: original).root) else {
                throw mismatch("document \"\(legacy.id)\" has a body that differs from the 1.x one", legacy.id)
            }
            for attachment in legacy.attachments {
                guard let digest = attachment.digest, !missing.contains(digest),
                      let sha1 = attachment.sha1, let key = try? BlobKey(digest: sha1) else { continue }  // allowed: the migration copies no file for such an attachment and reports it missing
                guard core.blobStore.contains(key) else {
                    throw mismatch("attachment \(digest) of document \"\(legacy.id)\" is not in the blob store", legacy.id)
                }
            }
        }
        guard checked == summary.documentCount else {
            throw mismatch("the 1.x database now lists \(checked) documents where \(summary.documentCount) were copied")
        }
        try core.close()
    }
}
