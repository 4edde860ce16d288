import BlobStore
import Fleece
import Foundation
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
            for revision in document.tree.revisions {
                guard let body = revision.body, !body.isEmpty,
                      let fleece = try? FleeceDocument(bytes: body, sharedKeys: sharedKeys) else { continue }
                for blob in BlobReferences.blobDictionaries(fleece.root) {
                    if let digest = blob["digest"]?.string, let key = try? BlobKey(digest) { keys.insert(key) }
                }
            }
        }
        return keys
    }

    /// Compacts the data file and deletes blobs no kept revision refers to.
    ///
    /// - Returns: how many blob files were deleted.
    @discardableResult
    package func compact() throws -> Int {
        // Inside a transaction, so no save can add a reference between the scan and the removal.
        let summary: BlobRemovalSummary = try inTransaction {
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
