/// What a save or delete does when the document changed since it was read.
public enum ConcurrencyControl: UInt8, Sendable {
    /// The last write wins: save over the other change.
    case lastWriteWins = 0
    /// Fail (return false) and leave the document as the other writer left it.
    case failOnConflict = 1
}

/// The kinds of database maintenance ``Database/performMaintenance(type:)`` runs.
public enum MaintenanceType: UInt8, Sendable {
    /// Compact the file and delete blobs no document refers to.
    case compact = 0
    /// Rebuild indexes.
    case reindex = 1
    /// Check the database's integrity.
    case integrityCheck = 2
}
