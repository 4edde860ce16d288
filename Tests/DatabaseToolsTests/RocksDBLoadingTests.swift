import Foundation
import Testing
import TestSupport

/// RocksDB is loaded when the first RocksDB database opens, not at start-up (decision Tools-12):
/// a `cblite` run on a SQLite database never maps the library; one on a RocksDB database does,
/// and works. The dynamic loader's own trace (`LD_DEBUG=files`) says what was loaded.
@Suite(.ownThreads) struct RocksDBLoadingTests {
    static func loadedLibraries(_ arguments: String...) throws -> (status: Int32, trace: String) {
        let result = try ToolRunner.run("cblite", arguments, environment: ["LD_DEBUG": "files"])
        return (result.status, result.stderr)
    }

    @Test func onlyARocksDBDatabaseLoadsTheLibrary() throws {
        let directory = try TemporaryDirectory()
        defer { withExtendedLifetime(directory) {} }
        let input = directory.appending("docs.jsonl")
        try Data("{\"_id\":\"a\",\"n\":1}\n{\"_id\":\"b\",\"n\":2}\n".utf8).write(to: input)
        let sqlite = directory.appending("plain.cblite2").path
        let rocks = directory.appending("rocks.cblite2").path
        #expect(try ToolRunner.cblite("import", sqlite, input.path).status == 0)
        #expect(try ToolRunner.cblite("import", "--engine", "rocksdb", rocks, input.path).status == 0)

        let onSQLite = try Self.loadedLibraries("info", sqlite)
        #expect(onSQLite.status == 0)
        #expect(onSQLite.trace.contains("libc.so"), "the trace shows no libraries at all: \(onSQLite.trace.prefix(300))")
        #expect(!onSQLite.trace.contains("librocksdb"))

        let onRocksDB = try Self.loadedLibraries("info", rocks)
        #expect(onRocksDB.status == 0)
        #expect(onRocksDB.trace.contains("librocksdb"))
    }
}
