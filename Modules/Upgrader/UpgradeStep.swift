/// The named points of an upgrade, in the order they are reached; a fault-injection hook
/// (``LegacyUpgrader/faultHook``) is called at each, so tests can fail or end the process there.
package enum UpgradeStep: String, CaseIterable, Sendable {
    /// The staging folder was cleared and the 1.x database copied aside for reading.
    case readerOpened
    /// The first document was inserted (inside the still-open transaction).
    case firstDocumentCopied
    /// Every document and attachment is in the new database; its transaction is not yet
    /// committed.
    case documentsCopied
    /// The new database's transaction committed and it was closed.
    case committed
    /// The new database was reopened and checked against the 1.x one.
    case verified
    /// The new bundle is in place under the database's name; the 1.x original still sits in
    /// the staging folder, not yet deleted.
    case swapped
    /// The staging folder (with the 1.x original) was removed: the upgrade is complete.
    case finished
}

/// Called at every ``UpgradeStep`` of an upgrade; throwing aborts it (the staging folder is
/// removed and the original left as it was). Tests use it to simulate failures and crashes.
package typealias UpgradeFaultHook = @Sendable (UpgradeStep) throws -> Void
