/// A read snapshot: a reader connection kept inside one read transaction.
package final class SQLiteSnapshot: Sendable {
    let connection: SQLiteConnection
    /// Whether the transaction is the connection's kept read (Storage-14), which outlives the snapshot.
    let kept: Bool
    init(connection: SQLiteConnection, kept: Bool) {
        self.connection = connection
        self.kept = kept
    }
}
