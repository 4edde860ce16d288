/// A read snapshot: a reader connection kept inside one read transaction.
final class SQLiteSnapshot: Sendable {
    let connection: SQLiteConnection
    init(connection: SQLiteConnection) { self.connection = connection }
}
