import CSQLite
import Foundation
import Upgrader

/// Writes a Couchbase Lite 1.x database (the 1.3 schema, taken from the ios130 fixture) with
/// the raw SQLite C API, for cases no real fixture has: conflicts, bad revision IDs, bad bodies,
/// data only in the WAL, out-of-range schema versions.
final class LegacyDatabaseBuilder {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// The `.cblite2` bundle written.
    let bundle: URL
    private var connection: OpaquePointer?

    static let schema = """
        CREATE TABLE docs (doc_id INTEGER PRIMARY KEY, docid TEXT UNIQUE NOT NULL, expiry_timestamp INTEGER);
        CREATE INDEX docs_docid ON docs(docid);
        CREATE TABLE revs (sequence INTEGER PRIMARY KEY AUTOINCREMENT,
            doc_id INTEGER NOT NULL REFERENCES docs(doc_id) ON DELETE CASCADE,
            revid TEXT NOT NULL COLLATE REVID, parent INTEGER REFERENCES revs(sequence) ON DELETE SET NULL,
            current BOOLEAN, deleted BOOLEAN DEFAULT 0, json BLOB, no_attachments BOOLEAN, doc_type TEXT,
            UNIQUE (doc_id, revid));
        CREATE INDEX revs_parent ON revs(parent);
        CREATE INDEX revs_by_docid_revid ON revs(doc_id, revid desc, current, deleted);
        CREATE INDEX revs_current ON revs(doc_id, current desc, deleted, revid desc);
        CREATE TABLE localdocs (docid TEXT UNIQUE NOT NULL, revid TEXT NOT NULL COLLATE REVID, json BLOB);
        CREATE INDEX localdocs_by_docid ON localdocs(docid);
        CREATE TABLE views (view_id INTEGER PRIMARY KEY, name TEXT UNIQUE NOT NULL, version TEXT,
            lastsequence INTEGER DEFAULT 0, total_docs INTEGER DEFAULT -1);
        CREATE INDEX views_by_name ON views(name);
        CREATE TABLE info (key TEXT PRIMARY KEY, value TEXT);
        """

    /// Creates `<folder>/<name>.cblite2/db.sqlite3` with the 1.x schema and `userVersion`.
    ///
    /// - Parameter walOnly: keep everything after the WAL switch in the `-wal` file (automatic
    ///   checkpoints off); the data stays there while this builder is open.
    init(in folder: URL, name: String = "legacy", userVersion: Int = 102, walOnly: Bool = false) throws {
        bundle = folder.appendingPathComponent("\(name).cblite2", isDirectory: true)
        try FileManager.default.createDirectory(at: bundle.appendingPathComponent("attachments"),
                                                withIntermediateDirectories: true)
        let path = bundle.appendingPathComponent("db.sqlite3").path
        guard sqlite3_open_v2(path, &connection, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nil) == SQLITE_OK,
              let connection else { throw Failure(description: "cannot create \(path)") }
        _ = LegacyRevisionID.registerCollation(on: connection)
        // Test databases need no durability; without fsyncs every row costs microseconds.
        try execute("PRAGMA synchronous = OFF")
        if walOnly {
            try execute("PRAGMA journal_mode = WAL; PRAGMA wal_autocheckpoint = 0;")
        }
        try execute(Self.schema + "PRAGMA user_version = \(userVersion);")
    }

    deinit { close() }

    /// Closes the database (checkpointing and removing a WAL, as SQLite does on last close).
    func close() {
        sqlite3_close_v2(connection)
        connection = nil
    }

    /// Adds a document row; returns its key for ``addRevision``.
    @discardableResult
    func addDocument(_ id: String) throws -> Int64 {
        try execute("INSERT INTO docs (docid) VALUES (\(quoted(id)))")
        return sqlite3_last_insert_rowid(connection)
    }

    /// Adds a revision row; returns its sequence, to be used as a later revision's parent.
    @discardableResult
    func addRevision(document: Int64, revID: String, parent: Int64? = nil, current: Bool,
                     deleted: Bool = false, json: String?, noAttachments: Bool = true) throws -> Int64 {
        let parentSQL = parent.map(String.init) ?? "NULL"
        let jsonSQL = json.map { "CAST(\(quoted($0)) AS BLOB)" } ?? "NULL"
        try execute("""
            INSERT INTO revs (doc_id, revid, parent, current, deleted, json, no_attachments)
            VALUES (\(document), \(quoted(revID)), \(parentSQL), \(current ? 1 : 0), \(deleted ? 1 : 0),
                    \(jsonSQL), \(noAttachments ? 1 : 0))
            """)
        return sqlite3_last_insert_rowid(connection)
    }

    /// Adds a document with one live revision and returns the revision's sequence.
    @discardableResult
    func addSimpleDocument(_ id: String, revID: String = "1-0123456789abcdef0123456789abcdef",
                           json: String = #"{"a":1}"#) throws -> Int64 {
        let key = try addDocument(id)
        return try addRevision(document: key, revID: revID, current: true, json: json)
    }

    func execute(_ sql: String) throws {
        var message: UnsafeMutablePointer<CChar>?
        guard sqlite3_exec(connection, sql, nil, nil, &message) == SQLITE_OK else {
            let text = message.map { String(cString: $0) } ?? "unknown error"
            sqlite3_free(message)
            throw Failure(description: "\(text) in \(sql)")
        }
    }

    private func quoted(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: "''") + "'"
    }
}
