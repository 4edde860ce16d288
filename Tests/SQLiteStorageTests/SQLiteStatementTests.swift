import CSQLite
import LiteStorage
import Testing
import TestSupport
@testable import SQLiteStorage

/// Bind failures are not ignored: the statement refuses to run with a missing value.
@Suite(.ownThreads) struct SQLiteStatementTests {
    @Test func aFailedBindFailsTheStep() throws {
        try withTemporaryDirectory { directory in
            let connection = try SQLiteConnection(path: directory.appending("t.sqlite3").path,
                                                  flags: SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE)
            defer { connection.close() }
            let statement = try connection.prepare("SELECT ?")
            defer { statement.finalize() }
            statement.bind(7, Int64(1))          // there is no parameter 7: SQLITE_RANGE
            #expect(throws: StorageError.self) { try statement.step() }
            statement.reset()
            statement.bind(1, Int64(42))
            #expect(try statement.step())
            #expect(statement.int64(0) == 42)
        }
    }

    @Test func aCursorUsedAfterItsSnapshotEndedIsAnError() throws {
        try withTemporaryDataFile(.sqlite) { file in
            let store = try file.keyStore("default")
            try file.write { txn in try store.set(Record(key: "a", body: [1]), ifSequence: nil, in: txn) }
            let cursor = try file.withReadSnapshot { try store.enumerate(options: .init()) }
            defer { cursor.close() }
            #expect(throws: StorageError.self) { _ = try cursor.next() }
        }
    }
}
