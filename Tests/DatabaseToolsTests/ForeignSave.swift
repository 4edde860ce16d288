import DatabaseTools
import LiteStorage
@testable import SQLiteStorage
import Testing

/// A save made the way another program (the real Couchbase Lite) makes it in a SQLite file: as
/// SQL, so SQLite's triggers keep LiteCore's FTS4 tables while our indexes hear nothing.
enum ForeignSave {
    /// Copies document `source` of the file at `path` under the ID `copy`, with the next sequence.
    static func copyDocument(_ source: String, as copy: String, inFileAt path: String) throws {
        let core = try DatabaseLocation(path: path).open(.readWrite)
        defer { try? core.close() }   // allowed: closing after the save
        let file = try #require(core.dataFile as? SQLiteDataFile)
        try file.write { txn in
            try file.withWriter(txn) { connection in
                try connection.execute("""
                    INSERT INTO kv_default (key, sequence, flags, version, body) SELECT '\(copy)', \
                    (SELECT max(sequence) + 1 FROM kv_default), flags, version, body FROM kv_default WHERE key = '\(source)';
                    UPDATE kvmeta SET lastSeq = (SELECT max(sequence) FROM kv_default) WHERE name = 'default';
                    """)
            }
        }
    }
}
