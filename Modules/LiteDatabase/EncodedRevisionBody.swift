import Fleece

/// A document body encoded ahead of its save, with what the save derives from the bytes alone:
/// whether it refers to blobs, and the revision ID it gets when it starts a document (no
/// parent). The importer makes these on its encoding thread so that the storing thread only
/// stores.
package struct EncodedRevisionBody: Sendable {
    /// Fleece encoded with the database's shared keys.
    package let bytes: [UInt8]
    /// Whether the body refers to a blob.
    let hasBlobs: Bool
    /// The revision ID of this body as a document's first revision.
    let firstRevisionID: RevisionID

    /// Derives the rest from `bytes`, read with `sharedKeys` (the table it was encoded with).
    package init(bytes: [UInt8], sharedKeys: SharedKeys) throws {
        self.bytes = bytes
        hasBlobs = try BlobReferences.mayContainBlobs(body: bytes, sharedKeys: sharedKeys)
            && BlobReferences.containsBlobs(body: bytes,
                                            root: FleeceDocument(bytes: bytes, sharedKeys: sharedKeys, trusted: true).root)
        firstRevisionID = RevisionID.next(after: nil, deleted: false, body: bytes)
    }
}
