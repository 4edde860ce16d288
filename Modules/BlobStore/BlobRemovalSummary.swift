/// What ``BlobStore/removeBlobs(notIn:modifiedBefore:temporaryFileAge:)`` removed.
package struct BlobRemovalSummary: Equatable, Sendable {
    /// Blob files removed because no key in the kept set names them.
    package var removedBlobs: [BlobKey] = []
    /// The total size of the removed blob files, in bytes.
    package var removedBytes: Int64 = 0
    /// Leftover `incoming_*` files of writers that died without finishing.
    package var removedTemporaryFiles = 0

    /// Makes an empty summary.
    package init() {}
}
