import CSQLite
import Synchronization

/// The first copy of the WAL-index header at the start of the `-shm` file (48 bytes; layout in
/// SQLite's "WAL-mode file format" document): every commit appends frames, which changes
/// `mxFrame`, or restarts the log, which changes the salts, so two equal copies mean no
/// transaction committed in between, from any connection or process.
struct WALIndexHeader: Equatable {
    var words: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64)

    static func == (lhs: WALIndexHeader, rhs: WALIndexHeader) -> Bool {
        lhs.words.0 == rhs.words.0 && lhs.words.1 == rhs.words.1 && lhs.words.2 == rhs.words.2
            && lhs.words.3 == rhs.words.3 && lhs.words.4 == rhs.words.4 && lhs.words.5 == rhs.words.5
    }
}

// Reader connections keep their read transaction open between reads (Storage-14): starting
// and ending one costs SQLite about six `fcntl` lock calls, a third of a read by key. The kept
// transaction is used only while the WAL-index header is unchanged, that is while it still
// sees the latest commit, and it is ended after every commit in this process so that it never
// holds a checkpoint back for long.
extension SQLiteConnection {
    /// Makes sure a read on this connection sees the latest commit, through a read transaction
    /// kept open when the WAL index can be watched (otherwise reads run in autocommit mode).
    func prepareKeptRead() throws {
        if let kept = keptReadHeader {
            if currentWALIndexHeader() == kept { return }
            endKeptRead()
        }
        // Taken before the transaction's first read: a commit in between only makes the next
        // check end a transaction that was in fact current.
        guard let header = currentWALIndexHeader() else { return }
        try cached("BEGIN").run()
        keptReadHeader = header
    }

    /// Ends the kept read transaction, if one is open.
    func endKeptRead() {
        guard keptReadHeader != nil else { return }
        keptReadHeader = nil
        // A read-only transaction has nothing to lose; if COMMIT fails, ROLLBACK ends it.
        if sqlite3_get_autocommit(handle) == 0, sqlite3_exec(handle, "COMMIT", nil, nil, nil) != SQLITE_OK {
            sqlite3_exec(handle, "ROLLBACK", nil, nil, nil)
        }
    }

    /// The header as it is now, or nil when the WAL index is not (yet) mapped.
    func currentWALIndexHeader() -> WALIndexHeader? {
        guard let index = walIndexRegion() else { return nil }
        // The writer stores the header with plain copies between barriers; order this read
        // after everything before it, as SQLite's own readers do.
        atomicMemoryFence(ordering: .acquiring)
        var header = WALIndexHeader(words: (0, 0, 0, 0, 0, 0))
        withUnsafeMutableBytes(of: &header.words) { $0.copyMemory(from: UnsafeRawBufferPointer(start: index, count: 48)) }
        atomicMemoryFence(ordering: .acquiring)
        return header
    }

    /// SQLite's mapping of the `-shm` file's first region, asked of the file's VFS once, after
    /// a read made SQLite open the WAL index itself. Nil when the file is not in WAL mode or the
    /// VFS keeps no shared index (then reads stay in autocommit mode).
    private func walIndexRegion() -> UnsafeRawPointer? {
        if walIndexLookedUp { return walIndex }
        guard sqlite3_get_autocommit(handle) != 0 else { return nil }
        walIndexLookedUp = true
        // Asking for the region of a file not in WAL mode would create a `-shm` file.
        // Failing to learn the mode only means reads stay in autocommit mode, as before.
        guard let mode = try? cached("PRAGMA journal_mode"), (try? mode.step()) == true else { return nil }   // allowed: see above
        let isWAL = mode.text(0).lowercased() == "wal"
        mode.reset()
        // The read makes SQLite open its WAL index before it is asked for (failing: as above).
        guard isWAL, (try? integer("SELECT count(*) FROM sqlite_master")) != nil else { return nil }   // allowed: see above
        var file: UnsafeMutablePointer<sqlite3_file>?
        guard sqlite3_file_control(handle, "main", SQLITE_FCNTL_FILE_POINTER, &file) == SQLITE_OK,
              let file, let methods = file.pointee.pMethods, methods.pointee.iVersion >= 2,
              let map = methods.pointee.xShmMap else { return nil }
        var region: UnsafeMutableRawPointer?
        // 32 KB is the region size SQLite itself maps the WAL index in.
        guard map(file, 0, 32_768, 0, &region) == SQLITE_OK, let region else { return nil }
        walIndex = UnsafeRawPointer(region)
        return walIndex
    }
}
