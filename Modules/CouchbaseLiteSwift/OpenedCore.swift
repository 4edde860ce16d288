import LiteDatabase
import LiteSupport

/// What a ``Database`` has open: its core, the key that core was opened with, and how many
/// replicators and listeners are using it (a key change, which reopens the core, waits for
/// none to be).
struct OpenedCore: Sendable {
    /// The open core.
    var core: DatabaseCore
    /// The key the files are encrypted with now (nil: plaintext).
    var encryptionKey: AES256Key?
    /// Replicators running on the database, and listeners serving it.
    var replicationUsers = 0
}
