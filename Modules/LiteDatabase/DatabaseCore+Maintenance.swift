import BlobStore
import Fleece
import FoundationEssentials
import LiteStorage

extension DatabaseCore {

    /// The blobs referred to by any kept revision of any document.
    package func referencedBlobKeys() throws -> Set<BlobKey> {
        var keys = Set<BlobKey>()
        let enumerator = try DatabaseError.mapping("listing documents with blobs") {
            try documents.enumerate(startKey: nil, endKey: nil,
                                    options: RecordEnumerationOptions(includeDeleted: true,
                                                                      requiredFlags: .hasAttachments))
        }
        while let record = try DatabaseError.mapping("listing documents with blobs", { try enumerator.next() }) {
            let document = try StoredDocument(record: record)
            // A body that cannot be read may refer to blobs: stop rather than delete them.
            try forEachRevisionBody(of: document, ifUnreadable: { revision, error in
                throw DatabaseError(.corruptRevisionData,
                                    "document \"\(document.id)\": the body of revision \(revision.id.string) cannot be "
                                    + "read, so its blobs cannot be told apart from unused ones; nothing was "
                                    + "deleted (run an integrity check, then purge or repair the document)",
                                    underlying: error)
            }) { _, fleece in
                for blob in BlobReferences.blobDictionaries(fleece.root) {
                    guard let digest = blob["digest"]?.string else { continue }
                    do {
                        keys.insert(try BlobKey(digest))
                    } catch {
                        // No file in the store can have such a name, so no file is at stake.
                        DatabaseLog.warning("document \"\(document.id)\" refers to a blob with an invalid digest \"\(digest)\"")
                    }
                }
            }
        }
        return keys
    }

    /// Calls `visit` with each kept revision body of `document` read as Fleece. A body that is
    /// not valid Fleece goes to `ifUnreadable` instead, which throws to stop the walk (blob
    /// collection, which must not guess) or returns to go on (the integrity check, which lists
    /// it).
    func forEachRevisionBody(of document: StoredDocument,
                             ifUnreadable: (Revision, any Error) throws -> Void,
                             _ visit: (Revision, FleeceDocument) throws -> Void) throws {
        for revision in document.tree.revisions {
            guard let body = revision.body, !body.isEmpty else { continue }
            let fleece: FleeceDocument
            do {
                fleece = try FleeceDocument(bytes: body, sharedKeys: sharedKeys)
            } catch {
                try ifUnreadable(revision, error)
                continue
            }
            try visit(revision, fleece)
        }
    }

    /// Compacts the data file and deletes blobs no kept revision refers to.
    ///
    /// - Returns: how many blob files were deleted.
    @discardableResult
    package func compact() throws -> Int {
        // Inside a transaction, so no save can add a reference between the scan and the removal.
        let summary: BlobRemovalSummary = try inTransaction { _ in
            let keep = try referencedBlobKeys()
            do {
                return try blobStore.removeBlobs(notIn: keep)
            } catch {
                throw DatabaseError(.ioError, "removing unused blobs of \"\(bundle.name)\"", underlying: error)
            }
        }
        try DatabaseError.mapping("compacting \"\(bundle.name)\"") { try dataFile.compact() }
        return summary.removedBlobs.count
    }
}
