/// What an active replication does (the configuration below the public API).
package struct ReplicationOptions: Sendable {
    /// Send local changes to the peer.
    package var push: Bool
    /// Receive the peer's changes.
    package var pull: Bool
    /// Keep running and replicate new changes as they happen.
    package var continuous: Bool
    /// The peer's identity in checkpoint IDs: its URL as configured (LiteCore hashes it).
    package var remoteURL: String
    /// Sync Gateway channels to pull (nil: all the user may see).
    package var channels: [String]?
    /// Only these documents (nil: all).
    package var documentIDs: [String]?
    /// Decides whether a local revision is pushed.
    package var pushFilter: (@Sendable (ReplicationDocumentInfo) throws -> Bool)?
    /// Decides whether a pulled revision is saved.
    package var pullFilter: (@Sendable (ReplicationDocumentInfo) throws -> Bool)?
    /// Changes per `changes` / `proposeChanges` message (LiteCore: 200).
    package var changesBatchSize: Int = 200
    /// Revisions sent and not yet answered, at most. LiteCore 2.8 transmits 10 at once and
    /// lets up to 2 MB wait for replies; we cannot see "transmitted", so we bound the waiting
    /// ones: two change lists' worth, so that the next list is read and proposed while the
    /// whole previous one is on its way (with 100, the pusher waited for room halfway
    /// through each list of 200, and proposed the next with at most 100 left to send).
    package var maxRevsInFlight: Int = 400
    /// Start from scratch instead of the saved checkpoint.
    package var resetCheckpoint: Bool = false
    /// The number this remote has in the documents' remote-revision maps.
    package var remoteID: UInt16 = 1
    /// How long after a change of progress the checkpoint is saved (LiteCore: 5 s); the end of
    /// a replication saves at once whatever this says.
    package var checkpointSaveDelay: Duration = .seconds(5)
    /// Revisions sent whose reply was lost with a connection: give one instance to every
    /// session of the same replicator, so a reconnection can propose with them as parents.
    package var unconfirmedRevisions = UnconfirmedRevisions()

    package init(push: Bool, pull: Bool, continuous: Bool = false, remoteURL: String) {
        self.push = push
        self.pull = pull
        self.continuous = continuous
        self.remoteURL = remoteURL
    }
}

/// What a push or pull filter is shown of a revision.
package struct ReplicationDocumentInfo: Sendable {
    package let documentID: String
    package let revisionID: String
    package let deleted: Bool
    /// The revision's body as Fleece with the local database's shared keys (pull: after
    /// conversion), or nil for a deletion.
    package let body: [UInt8]?

    package init(documentID: String, revisionID: String, deleted: Bool, body: [UInt8]?) {
        self.documentID = documentID
        self.revisionID = revisionID
        self.deleted = deleted
        self.body = body
    }
}
