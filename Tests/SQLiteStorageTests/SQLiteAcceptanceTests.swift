import Foundation
import LiteStorage
import SQLiteStorage
import Testing
import TestSupport

/// The SQLite engine against real Couchbase Lite 2.x files, and the exact 2.x layout of ours.
@Suite(.ownThreads) struct SQLiteAcceptanceTests {
    /// Runs the sqlite3 command-line tool (the independent reader of our files).
    private func sqlite3(_ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self)
    }

    private func openFixture(_ relativePath: String, readOnly: Bool = false,
                             _ body: (SQLiteDataFile, TemporaryDirectory) throws -> Void) throws {
        try withTemporaryDirectory { directory in
            let copy = try Fixtures.copy(relativePath, into: directory)
            let file = try SQLiteEngine().openFile(at: copy.path, options: .init(readOnly: readOnly))
            defer { try? file.close() }
            try body(file, directory)
        }
    }

    @Test func couchbaseLite27FileHoldsItsHundredDocuments() throws {
        try openFixture("v2/upgrade_2.7.cblite2/db.sqlite3") { file, _ in
            let store = try file.keyStore("default")
            let all = try store.enumerate(options: .init(includeDeleted: true)).collect()
            #expect(all.map(\.key) == (1...100).map { String(format: "doc-%03d", $0) })
            #expect(all.filter(\.isDeleted).map(\.key) == (51...100).map { String(format: "doc-%03d", $0) })
            #expect(try store.lastSequence() == 100)
            #expect(try store.recordCount() == 50)
            #expect(try store.get("doc-042")?.sequence == 42)
        }
    }

    @Test func couchbaseLite27FileEnumeratesBothWays() throws {
        try openFixture("v2/upgrade_2.7.cblite2/db.sqlite3") { file, _ in
            let store = try file.keyStore("default")
            let descending = try store.enumerate(options: .init(includeDeleted: true, descending: true)).collect()
            #expect(descending.first?.key == "doc-100")
            #expect(descending.last?.key == "doc-001")
            #expect(try store.enumerate().collect().map(\.key).last == "doc-050")
        }
    }

    @Test func couchbaseLite27InfoStoreIsReadable() throws {
        try openFixture("v2/upgrade_2.7.cblite2/db.sqlite3") { file, _ in
            let info = try file.keyStore("info")
            #expect(try info.get("versioning")?.body == [0, 0, 0, 0, 0, 0, 0, 0])
            #expect(try info.get("publicUUID")?.body.count == 16)
            #expect(try file.keyStoreNames() == ["default", "info"])
        }
    }

    @Test func couchbaseLite27FileOpensReadOnlyWithoutChanges() throws {
        try withTemporaryDirectory { directory in
            let copy = try Fixtures.copy("v2/upgrade_2.7.cblite2/db.sqlite3", into: directory)
            let before = try Data(contentsOf: copy)
            let file = try SQLiteEngine().openFile(at: copy.path, options: .init(readOnly: true))
            #expect(try file.keyStore("default").recordCount(includeDeleted: true) == 100)
            try file.close()
            #expect(try Data(contentsOf: copy) == before)
        }
    }

    @Test func writesToCouchbaseLite27FileContinueItsSequence() throws {
        try openFixture("v2/upgrade_2.7.cblite2/db.sqlite3") { file, _ in
            let store = try file.keyStore("default")
            let sequence = try file.write { txn in try store.set(Record(key: "doc-101", version: [1, 2]), ifSequence: 0, in: txn) }
            #expect(sequence == 101)
            #expect(try sqlite3([file.path, "SELECT lastSeq FROM kvmeta WHERE name='default'"]) == "101\n")
        }
    }

    @Test func couchbaseLite20FileGainsPurgeCountWhenOpenedForWriting() throws {
        try openFixture("v2/android200-sqlite/android-sqlite.cblite2/db.sqlite3") { file, _ in
            #expect(try file.keyStore("default").recordCount() == 2)
            try file.close()
            #expect(try sqlite3([file.path, "PRAGMA user_version"]) == "302\n")
            #expect(try sqlite3([file.path, "SELECT name FROM pragma_table_info('kvmeta')"])
                    .contains("purgeCnt"))
        }
    }

    @Test func couchbaseLite20FileReadsReadOnlyWithZeroPurgeCount() throws {
        try openFixture("v2/android200-sqlite/android-sqlite.cblite2/db.sqlite3", readOnly: true) { file, _ in
            let store = try file.keyStore("default")
            #expect(try store.enumerate().collect().map(\.key) == ["doc1", "doc2"])
            #expect(try store.purgeCount() == 0)
        }
    }

    @Test func newFileHasTheCouchbaseLite2Schema() throws {
        try withTemporaryDirectory { directory in
            let file = try SQLiteEngine().openFile(at: directory.appending("db.sqlite3").path,
                                                   options: .init(create: true))
            _ = try file.keyStore("default")
            try file.close()
            let schema = try sqlite3([file.path, ".schema"])
            #expect(schema.contains("CREATE TABLE kvmeta (name TEXT PRIMARY KEY, lastSeq INTEGER DEFAULT 0, "
                                    + "purgeCnt INTEGER DEFAULT 0) WITHOUT ROWID;"))
            #expect(schema.contains("CREATE TABLE kv_default (key TEXT PRIMARY KEY, sequence INTEGER, "
                                    + "flags INTEGER DEFAULT 0, version BLOB, body BLOB);"))
            #expect(try sqlite3([file.path, "PRAGMA user_version"]) == "302\n")
            #expect(try sqlite3([file.path, "PRAGMA journal_mode"]) == "wal\n")
            #expect(try sqlite3([file.path, "PRAGMA auto_vacuum"]) == "2\n")
        }
    }

    @Test func expirationAddsLiteCoresColumnAndIndex() throws {
        try withTemporaryDirectory { directory in
            let file = try SQLiteEngine().openFile(at: directory.appending("db.sqlite3").path,
                                                   options: .init(create: true))
            let store = try file.keyStore("default")
            try file.write { txn in
                try store.set(Record(key: "a"), ifSequence: 0, in: txn)
                try store.setExpiration("a", to: 1_700_000_000_000, in: txn)
            }
            try file.close()
            let schema = try sqlite3([file.path, ".schema kv_default"])
            #expect(schema.contains("expiration INTEGER"))
            #expect(schema.contains("ON kv_default (expiration) WHERE expiration not null"))
        }
    }

    @Test func byteKeyStoresAreNotKeyStoreTables() throws {
        try withTemporaryDirectory { directory in
            let file = try SQLiteEngine().openFile(at: directory.appending("db.sqlite3").path,
                                                   options: .init(create: true))
            _ = try file.byteKeyStore("by_name")
            try file.close()
            let tables = try sqlite3([file.path, "SELECT name FROM sqlite_master WHERE type='table' ORDER BY name"])
            #expect(tables == "bk_by_name\nkvmeta\n")
        }
    }

    @Test func couchbaseLite1FileIsTooOldAndCarriesItsVersion() throws {
        try withTemporaryDirectory { directory in
            let copy = try Fixtures.copy("v1/ios130/iosdb.cblite2", into: directory)
            let path = copy.path + "/db.sqlite3"
            let before = try FolderSnapshot(copy)
            let error = #expect(throws: StorageError.databaseTooOld) {
                try SQLiteEngine().open(at: path, options: .init())
            }
            #expect(error?.schemaVersion == 102)
            #expect(try FolderSnapshot(copy) == before)
        }
    }

    @Test func fileFromANewerVersionIsTooNew() throws {
        try withTemporaryDirectory { directory in
            let path = directory.appending("db.sqlite3").path
            try SQLiteEngine().openFile(at: path, options: .init(create: true)).close()
            _ = try sqlite3([path, "PRAGMA user_version=400"])
            let error = #expect(throws: StorageError.databaseTooNew) {
                try SQLiteEngine().open(at: path, options: .init())
            }
            #expect(error?.schemaVersion == 400)
        }
    }

    @Test func foreignSQLiteDatabaseIsRefusedUntouched() throws {
        try withTemporaryDirectory { directory in
            let path = directory.appending("db.sqlite3").path
            _ = try sqlite3([path, "CREATE TABLE notes (text TEXT); INSERT INTO notes VALUES ('x');"])
            let before = try FolderSnapshot(directory.url)
            #expect(throws: StorageError.notADatabase) { try SQLiteEngine().open(at: path, options: .init()) }
            #expect(try FolderSnapshot(directory.url) == before)
        }
    }
}

/// Empty SQLite files: initialised only when the caller asks to create.
@Suite(.ownThreads) struct SQLiteEmptyFileTests {
    private func makeEmptyDatabase(_ directory: TemporaryDirectory) throws -> String {
        let path = directory.appending("db.sqlite3").path
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
        process.arguments = [path, "PRAGMA page_size=4096; VACUUM;"]
        try process.run()
        process.waitUntilExit()
        return path
    }

    @Test func emptySQLiteDatabaseIsRefusedWithoutCreate() throws {
        try withTemporaryDirectory { directory in
            let path = try makeEmptyDatabase(directory)
            let before = try FolderSnapshot(directory.url)
            #expect(throws: StorageError.notADatabase) { try SQLiteEngine().open(at: path, options: .init()) }
            #expect(try FolderSnapshot(directory.url) == before)
        }
    }

    @Test func emptySQLiteDatabaseIsInitialisedWithCreate() throws {
        try withTemporaryDirectory { directory in
            let path = try makeEmptyDatabase(directory)
            let file = try SQLiteEngine().open(at: path, options: .init(create: true))
            defer { try? file.close() }
            #expect(try file.write { txn in try file.keyStore("default").set(Record(key: "a"), ifSequence: 0, in: txn) } == 1)
        }
    }

    @Test func zeroByteFileIsInitialisedWithCreate() throws {
        try withTemporaryDirectory { directory in
            let path = directory.appending("db.sqlite3").path
            _ = FileManager.default.createFile(atPath: path, contents: Data())
            let file = try SQLiteEngine().open(at: path, options: .init(create: true))
            defer { try? file.close() }
            #expect(try file.keyStoreNames().isEmpty)
        }
    }
}
