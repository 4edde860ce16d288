import CouchbaseLiteSwift
import Foundation
import Testing
import TestSupport

/// SQLite keeps a shared lock on a database file while its connections have it open; another
/// process may delete the WAL only when it can take the file for itself. Closing any descriptor
/// of a file drops every POSIX lock the process holds on it, so opening a database a second time
/// must not read its file through a descriptor of its own (Storage-38).
@Suite(.ownThreads) struct DatabaseFileLockTests {
    /// (Linux lists every lock in `/proc/locks`; SQLiteKeptReadTests checks the same through
    /// another process's writes where it is not readable.)
    @Test(.enabled(if: FileManager.default.isReadableFile(atPath: "/proc/locks")))
    func openingADatabaseAgainKeepsTheLockOnItsFile() throws {
        try withTemporaryDirectory { directory in
            let config = DatabaseConfiguration()
            config.directory = directory.path
            let first = try Database(name: "locks", config: config)
            defer { try? first.close() }
            try first.saveDocument(MutableDocument(id: "a", data: ["n": 1]))
            #expect(first.document(withID: "a") != nil)
            let file = directory.appending("locks.cblite2/db.sqlite3").path
            #expect(try Self.holdsLock(on: file), "no lock on the file after the first open")
            let second = try Database(name: "locks", config: config)
            defer { try? second.close() }
            #expect(second.document(withID: "a") != nil)
            #expect(try Self.holdsLock(on: file), "opening the database again dropped the process's locks on its file")
            #expect(first.document(withID: "a") != nil)
            #expect(try Self.holdsLock(on: file))
        }
    }

    /// Whether this process holds a POSIX lock on the file at `path` (Linux's `/proc/locks`
    /// lists each lock with its process and the file's device and inode).
    private static func holdsLock(on path: String) throws -> Bool {
        var status = stat()
        guard stat(path, &status) == 0 else { throw CocoaError(.fileNoSuchFile) }
        let pid = String(ProcessInfo.processInfo.processIdentifier)
        let locks = try String(contentsOfFile: "/proc/locks", encoding: .utf8)
        return locks.split(separator: "\n").contains { line in
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            return fields.count > 5 && fields[4] == pid && fields[5].hasSuffix(":\(status.st_ino)")
        }
    }
}
