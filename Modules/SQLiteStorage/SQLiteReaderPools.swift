import LiteStorage
import LiteSupport

/// The reader pools of every `SQLiteDataFile` open on one path in this process, kept in the
/// path's `SharedFile`, so that a commit through any instance ends the read transactions all
/// idle readers keep (Storage-14) and none holds back the checkpoint of that commit.
final class SQLiteReaderPools: Sendable {
    private let pools = Locked<[ObjectIdentifier: SQLiteConnectionPool]>([:])

    /// The pools of `shared`'s path, created on first use.
    static func of(_ shared: SharedFile) -> SQLiteReaderPools {
        shared.withEngineState { state in
            if let pools = state as? SQLiteReaderPools { return pools }
            let pools = SQLiteReaderPools()
            state = pools
            return pools
        }
    }

    func add(_ pool: SQLiteConnectionPool) {
        pools.withLock { $0[ObjectIdentifier(pool)] = pool }
    }

    func remove(_ pool: SQLiteConnectionPool) {
        _ = pools.withLock { $0.removeValue(forKey: ObjectIdentifier(pool)) }
    }

    /// Ends the kept read transactions of every idle reader on the path.
    func endKeptReads() {
        for pool in pools.withLock({ Array($0.values) }) { pool.endKeptReads() }
    }
}
