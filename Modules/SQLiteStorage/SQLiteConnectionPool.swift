import CSQLite
import LiteStorage
import LiteSupport

/// Idle reader connections of one data file. A reader takes one, uses it on its thread, and
/// gives it back; new ones are opened on demand, so readers never wait for each other.
final class SQLiteConnectionPool: Sendable {
    private let path: String
    private let flags: Int32
    private let maximumIdle = 8
    private let idle = Locked<(connections: [SQLiteConnection], closed: Bool)>(([], false))

    private let reader: (any RecordValueReader)?
    private let encryption: SQLiteEncryption?

    init(path: String, readOnly: Bool, reader: (any RecordValueReader)?, encryption: SQLiteEncryption? = nil) {
        self.path = path
        flags = readOnly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE
        self.reader = reader
        self.encryption = encryption
    }

    /// An idle connection, or a new one, in autocommit mode (for a snapshot or a cursor).
    func checkout() throws -> SQLiteConnection {
        let connection = try checkoutKeepingRead()
        connection.endKeptRead()
        return connection
    }

    /// A connection whose reads see the latest commit, through a read transaction kept open
    /// between checkouts where possible (Storage-14); for a read by key or another short read.
    func checkoutForReading() throws -> SQLiteConnection {
        let connection = try checkoutKeepingRead()
        do {
            try connection.prepareKeptRead()
        } catch {
            checkin(connection)
            throw error
        }
        return connection
    }

    /// Ends the read transactions idle connections keep, so that they do not hold back the
    /// checkpoint of what was just committed (called after every commit on the file).
    func endKeptReads() {
        idle.withLock { idle in
            for connection in idle.connections { connection.endKeptRead() }
        }
    }

    private func checkoutKeepingRead() throws -> SQLiteConnection {
        if let connection = idle.withLock({ $0.connections.popLast() }) { return connection }
        let connection = try SQLiteConnection(path: path, flags: flags, encryption: encryption)
        if let reader { try SQLiteFleeceFunctions.register(on: connection, reader: reader) }
        // Readers never write; query_only makes a stray write an error instead of a surprise.
        try connection.execute(SQLiteSchema.cacheSettings + "PRAGMA busy_timeout=10000; PRAGMA query_only=1; PRAGMA case_sensitive_like=true")
        return connection
    }

    /// Returns a connection for reuse (closes it when enough are idle).
    func checkin(_ connection: SQLiteConnection) {
        let kept = idle.withLock { idle -> Bool in
            // After closeAll, a connection a reader still had is closed when it comes back.
            guard !idle.closed, idle.connections.count < maximumIdle else { return false }
            // A kept read that a commit left behind while the connection was out would hold back
            // the checkpoint until its next use. Under the lock that `endKeptReads` takes, so a
            // commit either changed the header by now or will find the connection idle.
            if let header = connection.keptReadHeader, connection.currentWALIndexHeader() != header { connection.endKeptRead() }
            idle.connections.append(connection)
            return true
        }
        if !kept { connection.close() }
    }

    /// Closes every idle connection; those still in use are closed when checked in.
    func closeAll() {
        let connections = idle.withLock { idle in
            defer { idle = ([], true) }
            return idle.connections
        }
        for connection in connections { connection.close() }
    }
}
