/// A read snapshot: a reader connection kept inside one read transaction.
package final class SQLiteSnapshot: Sendable {
    let connection: SQLiteConnection
    init(connection: SQLiteConnection) { self.connection = connection }
}
