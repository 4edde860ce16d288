import BlobStore

/// A `rev` request checked and converted, not yet saved: the revision, the blobs its body
/// names that this database lacks (fetched from the peer before saving), and whether it must
/// not branch the document.
struct ReceivedRevision: Sendable {
    let incoming: IncomingRevision
    let missingBlobs: [(key: BlobKey, length: Int64?, contentType: String?)]
    let noConflicts: Bool
}
