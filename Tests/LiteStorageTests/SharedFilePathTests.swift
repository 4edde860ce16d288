import Foundation
import LiteStorage
import Testing
import TestSupport

/// Two spellings of one file share one `SharedFile` (its write lock and observers): the key is
/// the path with every symbolic link and `..` resolved, for files that exist and for files a
/// database is about to create.
@Suite(.ownThreads) struct SharedFilePathTests {
    @Test func spellingsOfOneFileHaveOneKey() throws {
        try withTemporaryDirectory { directory in
            let manager = FileManager.default
            let real = directory.appending("real")
            try manager.createDirectory(at: real, withIntermediateDirectories: true)
            let link = directory.appending("link")
            try manager.createSymbolicLink(at: link, withDestinationURL: real)
            let file = real.appendingPathComponent("db.sqlite3")
            try Data("x".utf8).write(to: file)
            let canonical = SharedFile.canonicalPath(file.path)

            #expect(SharedFile.canonicalPath(link.path + "/db.sqlite3") == canonical)
            #expect(SharedFile.canonicalPath(real.path + "/../real/./db.sqlite3") == canonical)
            #expect(!canonical.contains("/link/") && !canonical.contains(".."))

            // Not created yet: the folder is resolved, the name kept.
            let absent = SharedFile.canonicalPath(link.path + "/new.sqlite3")
            #expect(absent == (canonical as NSString).deletingLastPathComponent + "/new.sqlite3")
            #expect(SharedFile.canonicalPath(real.path + "/../link/new.sqlite3") == absent)
        }
    }
}
