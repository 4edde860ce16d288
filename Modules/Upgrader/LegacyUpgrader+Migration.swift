import BlobStore
import Fleece
import FoundationEssentials
import LiteDatabase

extension LegacyUpgrader {
    /// Copies every document of `reader` into a new database in `bundle`, in one transaction,
    /// and every attachment file into its blob store; closes the new database.
    func migrate(_ reader: LegacyDatabaseReader, into bundle: DatabaseBundle) throws -> UpgradeSummary {
        let core = try DatabaseCore(bundle: bundle, registry: registry, engineName: engineName, create: true,
                                    encryptionKey: encryptionKey)
        defer { try? core.close() }   // allowed: every batch is committed before this; `verify` reopens the built database and fails on anything missing
        var summary = UpgradeSummary(sourcePath: reader.bundleURL.path, destinationPath: bundle.path,
                                     engineName: core.engine.name, schemaVersion: reader.schemaVersion)
        summary.skippedDocumentIDs = try reader.skippedDocumentIDs()
        var copiedBlobs: Set<BlobKey> = []
        try core.inTransaction { _ in
            // LiteCore's order, so shared keys get the numbers (and bodies the order) it gives.
            let documents = try reader.makeDocumentEnumeratorInImportOrder()
            while let document = try documents.next() {
                try insert(document, into: core, reader: reader)
                if summary.documentCount == 0 { try faultHook?(.firstDocumentCopied) }
                summary.documentCount += 1
                // LiteCore copies files only when no_attachments = 0; copying every file a body
                // names costs nothing when that flag is right and loses nothing when it is not.
                copyAttachments(of: document, to: core.blobStore, copied: &copiedBlobs,
                                missing: &summary.missingAttachments)
            }
            try faultHook?(.documentsCopied)
        }
        summary.copiedBlobCount = copiedBlobs.count
        try core.close()
        return summary
    }

    /// Inserts the winning revision with its history, the body encoded with the database's
    /// shared keys inside the caller's transaction.
    private func insert(_ document: LegacyDocument, into core: DatabaseCore, reader: LegacyDatabaseReader) throws {
        let body: [UInt8]
        do {
            body = try document.body.withUnsafeBytes {
                try JSONConverter.fleece(fromJSONBytes: $0, sharedKeys: core.sharedKeys)
            }
        } catch {
            throw UpgraderError(.invalidBody,
                "document \"\(document.id)\" in 1.x database \(reader.bundleURL.path) cannot be upgraded: "
                + "the body of revision \(document.revisionID) cannot be converted to Fleece",
                path: reader.bundleURL.path, documentID: document.id, underlying: error)
        }
        let history = document.history.map { RevisionID(generation: $0.generation, digest: $0.digest) }
        do {
            try core.insertRevision(id: document.id, history: history, body: body,
                                    deleted: document.isDeleted, markConflict: false)
        } catch {
            throw UpgraderError(.upgradeFailed,
                "document \"\(document.id)\" in 1.x database \(reader.bundleURL.path) cannot be "
                + "saved in the 2.x database; the 1.x database was not changed",
                path: reader.bundleURL.path, documentID: document.id, underlying: error)
        }
    }

    /// Copies each attachment file the document names into the blob store; records the ones
    /// that cannot be copied instead of failing, as LiteCore skips missing files.
    private func copyAttachments(of document: LegacyDocument, to store: BlobStore, copied: inout Set<BlobKey>,
                                 missing: inout [UpgradeSummary.MissingAttachment]) {
        for attachment in document.attachments {
            func skip(_ reason: String) {
                missing.append(.init(documentID: document.id, name: attachment.name,
                                     digest: attachment.digest, reason: reason))
            }
            guard let sha1 = attachment.sha1, let key = try? BlobKey(digest: sha1), let file = attachment.fileURL else {  // allowed: a digest that is not sha1-<base64> is reported as a skipped attachment just below
                skip("its digest \(attachment.digest ?? "(none)") is not sha1-<base64>, so its file cannot be found")
                continue
            }
            if copied.contains(key) { continue }
            guard attachment.isFilePresent else {
                skip("no file \(file.lastPathComponent) in \(attachment.attachmentsFolder.path)")
                continue
            }
            do {
                try store.importLegacyAttachment(at: file)
                copied.insert(key)
            } catch {
                skip("\(error)")
            }
        }
    }
}
