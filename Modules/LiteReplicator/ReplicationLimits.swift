/// Bounds on what one peer can make a replication session do, whichever side it is on
/// (issue 37: a hostile peer must not exhaust the disk, the tasks or the files of the process).
package struct ReplicationLimits: Sendable {
    /// The largest blob accepted from the peer, in bytes: a blob that declares more is refused
    /// before it is asked for, and one that streams more is cut off. 4 GiB: above any one
    /// attachment Sync Gateway can hold (a Couchbase Server item, 20 MB) or a phone records as
    /// one video, and small enough that one stream cannot fill a disk (Replication-35).
    package var maxBlobSize: Int64 = 4 << 30
    /// Received revisions being saved by tasks of their own at once (those waiting on blobs,
    /// and every one on the active side); further ones wait their turn in a queue. 100 is
    /// LiteCore 2.8's bound on revisions being handled (`kMaxActiveIncomingRevs`).
    package var maxConcurrentRevisions = 100
    /// `getAttachment` requests answered at once (each reads a blob file); further ones wait.
    package var maxConcurrentBlobReplies = 16

    package init() {}
}
