import CSQLite
import FoundationEssentials
import LiteStorage
import LiteSupport
import SQLiteStorage

/// Reads a Couchbase Lite 1.2+ SQLite database for migration, never modifying the original.
///
/// Opening checks the format (``DatabaseFormat/detect(at:)``) and refuses anything but a 1.x
/// SQLite database with a clear ``UpgraderError``. It then copies `db.sqlite3` with its `-wal`
/// and `-shm` into a private temporary folder and reads the copy, so data still only in the WAL
/// is seen and nothing is created beside the original. The copy is removed by ``close()`` (or
/// when the reader is released). Attachment files are not copied: each ``LegacyAttachment``
/// points at the original's `attachments/<HEX>.blob`, to be read from there.
///
/// ```swift
/// let reader = try LegacyDatabaseReader(bundlePath: "/data/app.cblite2")
/// defer { reader.close() }
/// try reader.forEachDocument { document in
///     // document.id, .body (JSON bytes), .history, .isDeleted, .attachments
/// }
/// ```
///
/// Not thread-safe: use a reader from one thread at a time.
package final class LegacyDatabaseReader {
    /// The bundle being read (the `.cblite2` folder).
    package let bundleURL: URL
    /// The 1.x schema version (`PRAGMA user_version`, 100–149).
    package let schemaVersion: Int
    /// The bundle's `attachments/` folder, where 1.x kept attachment contents.
    package let attachmentsFolder: URL

    /// The file names in ``attachmentsFolder`` when the reader opened: one listing instead of a
    /// `stat` per attachment.
    let blobFileNames: Set<String>

    let connection: SQLiteConnection
    private let workingDirectory: URL
    private var isClosed = false
    private var winningRevisionStatement: SQLiteStatement?
    private var revisionBySequenceStatement: SQLiteStatement?

    /// Opens the 1.x database in `bundlePath`: a `.cblite2` folder, or a 1.x SQLite database file
    /// (then attachments are looked for in `attachments/` beside it).
    ///
    /// - Parameter temporaryDirectory: where the private copy's folder is made; the system's
    ///   temporary directory when `nil`. It needs room for a copy of the database file.
    /// - Throws: ``UpgraderError`` — refusal (ForestDB, encrypted, pre-1.2, schema version out of
    ///   range, already 2.x), ``UpgraderError/Code/notADatabase`` or ``UpgraderError/Code/corrupt``
    ///   for unreadable files, ``UpgraderError/Code/fileSystem`` when the copy fails.
    package init(bundlePath: String, temporaryDirectory: URL? = nil) throws {
        let format = DatabaseFormat.detect(at: bundlePath)
        if let refusal = format.refusal(path: bundlePath) { throw refusal }
        var isDirectory = false
        _ = FileManager.default.fileExists(atPath: bundlePath, isDirectory: &isDirectory)
        let given = URL(fileURLWithPath: bundlePath, isDirectory: isDirectory)
        bundleURL = isDirectory ? given : given.deletingLastPathComponent()
        let original = isDirectory
            ? bundleURL.appendingPathComponent(DatabaseFormat.sqliteFileName) : given
        attachmentsFolder = bundleURL.appendingPathComponent("attachments", isDirectory: true)
        // No folder means no attachment files (each then is reported missing); a folder that
        // cannot be listed is an error, not a database whose attachments all went missing.
        var attachmentsIsDirectory = false
        if FileManager.default.fileExists(atPath: attachmentsFolder.path, isDirectory: &attachmentsIsDirectory),
           attachmentsIsDirectory {
            do {
                blobFileNames = Set(try FileManager.default.contentsOfDirectory(atPath: attachmentsFolder.path))
            } catch {
                throw UpgraderError(.fileSystem, "cannot list the 1.x attachments in \(attachmentsFolder.path): "
                                    + "check the permission to read it", path: bundlePath, underlying: error)
            }
        } else {
            blobFileNames = []
        }

        workingDirectory = (temporaryDirectory ?? FileManager.default.temporaryDirectory)
            .appendingPathComponent("cbl-upgrade-\(UUID().uuidString)", isDirectory: true)
        let copy = workingDirectory.appendingPathComponent(DatabaseFormat.sqliteFileName)
        do {
            try Self.copyDatabase(from: original, to: copy, workingDirectory: workingDirectory)
        } catch {
            // allowed: removing our own scratch copy; one left behind holds no user data
            try? FileManager.default.removeItem(at: workingDirectory)
            throw UpgraderError(.fileSystem,
                "cannot copy 1.x database \(original.path) to \(workingDirectory.path) for reading: "
                + "check there is free space and permission to read it", path: bundlePath,
                underlying: error)
        }
        do {
            // Read-write, so that SQLite can recover a copied WAL.
            connection = try Self.sqliteFailure(opening: bundlePath) {
                try SQLiteConnection(path: copy.path, flags: SQLITE_OPEN_READWRITE)
            }
            schemaVersion = try Self.prepareCopy(connection, bundlePath: bundlePath)
        } catch {
            // allowed: removing our own scratch copy; one left behind holds no user data
            try? FileManager.default.removeItem(at: workingDirectory)
            throw error
        }
    }

    deinit { close() }

    /// Releases the copy: closes it and deletes its temporary folder. Idempotent.
    package func close() {
        guard !isClosed else { return }
        isClosed = true
        winningRevisionStatement = nil
        revisionBySequenceStatement = nil
        connection.close()
        // allowed: removing our own scratch copy; one left behind holds no user data
        try? FileManager.default.removeItem(at: workingDirectory)
    }

    /// The number of documents the migration will copy (IDs not starting with `_`).
    package func documentCount() throws -> Int {
        try readFailure(while: "counting documents") {
            let statement = try connection.prepare(
                "SELECT count(*) FROM docs WHERE substr(docid, 1, 1) != '_'")
            _ = try statement.step()
            return Int(statement.int64(0))
        }
    }

    /// The IDs of documents that are not migrated because they start with `_` (e.g. design
    /// documents), for the migration's log.
    package func skippedDocumentIDs() throws -> [String] {
        try readFailure(while: "listing documents") {
            let statement = try connection.prepare(
                "SELECT docid FROM docs WHERE substr(docid, 1, 1) = '_' ORDER BY doc_id")
            var ids: [String] = []
            while try statement.step() { ids.append(statement.text(0)) }
            return ids
        }
    }

    /// An enumerator over every migrated document, in 1.x insertion order, read one at a time.
    package func makeDocumentEnumerator() throws -> LegacyDocumentEnumerator {
        let statement = try readFailure(while: "listing documents") {
            try connection.prepare("SELECT doc_id, docid FROM docs ORDER BY doc_id")
        }
        return LegacyDocumentEnumerator(reader: self, statement: statement)
    }

    /// An enumerator over every migrated document in the order LiteCore's upgrader imports
    /// them: whatever order SQLite scans `docs` in without `ORDER BY` (row order for 1.2
    /// schemas; document-ID order for 1.3, where the planner prefers the covering `docid`
    /// index). The migration uses it so that shared keys are numbered as LiteCore numbers them,
    /// which decides the order upgraded bodies print in.
    package func makeDocumentEnumeratorInImportOrder() throws -> LegacyDocumentEnumerator {
        let statement = try readFailure(while: "listing documents") {
            try connection.prepare("SELECT doc_id, docid FROM docs")
        }
        return LegacyDocumentEnumerator(reader: self, statement: statement)
    }

    /// Calls `body` with every migrated document in turn, reading one at a time.
    package func forEachDocument(_ body: (LegacyDocument) throws -> Void) throws {
        let enumerator = try makeDocumentEnumerator()
        while let document = try enumerator.next() { try body(document) }
    }

    /// Every migrated document, in 1.x insertion order.
    package func readAllDocuments() throws -> [LegacyDocument] {
        var documents: [LegacyDocument] = []
        try forEachDocument { documents.append($0) }
        return documents
    }

    /// One document by ID, or `nil` when there is none (or it has no revisions). IDs starting
    /// with `_` are read too, for callers that want to inspect them.
    package func document(withID id: String) throws -> LegacyDocument? {
        let key: Int64? = try readFailure(while: "looking up document \"\(id)\"") {
            let statement = try connection.prepare("SELECT doc_id FROM docs WHERE docid = ?")
            statement.bind(1, id)
            return try statement.step() ? statement.int64(0) : nil
        }
        guard let key else { return nil }
        return try readDocument(key: key, id: id)
    }

    func winningRevision() throws -> SQLiteStatement {
        if let statement = winningRevisionStatement { return statement }
        // LiteCore's rule for the current revision: a live leaf before a deleted one, then the
        // highest revision ID in REVID order.
        let statement = try connection.prepare("""
            SELECT sequence, revid, parent, deleted, json, no_attachments FROM revs
            WHERE doc_id = ? AND current != 0 ORDER BY deleted, revid DESC LIMIT 1
            """)
        winningRevisionStatement = statement
        return statement
    }

    func revisionBySequence() throws -> SQLiteStatement {
        if let statement = revisionBySequenceStatement { return statement }
        let statement = try connection.prepare(
            "SELECT revid, parent, doc_id FROM revs WHERE sequence = ?")
        revisionBySequenceStatement = statement
        return statement
    }

    /// Runs `body`, turning a SQLite failure into an ``UpgraderError`` that says what was being
    /// done.
    func readFailure<T>(while activity: @autoclosure () -> String, documentID: String? = nil,
                        _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let failure as StorageError {
            let isCorruption = Self.isCorruption(failure)
            throw UpgraderError(isCorruption ? .corrupt : .fileSystem,
                "1.x database \(bundleURL.path) \(isCorruption ? "is corrupt" : "could not be read") while "
                + "\(activity()): \(failure.message)", path: bundleURL.path, documentID: documentID, underlying: failure)
        }
    }

    /// Opens SQLite on the copy, turning its failure into an ``UpgraderError``.
    private static func sqliteFailure(opening bundlePath: String,
                                      _ body: () throws -> SQLiteConnection) throws -> SQLiteConnection {
        do {
            return try body()
        } catch {
            throw UpgraderError(isCorruption(error) ? .corrupt : .fileSystem,
                "1.x database at \(bundlePath) cannot be opened: \((error as? StorageError)?.message ?? "\(error)")",
                path: bundlePath, underlying: error)
        }
    }

    /// Whether SQLite found the file damaged or not a database at all.
    private static func isCorruption(_ error: any Error) -> Bool {
        guard let code = (error as? any CodedError)?.errorCode else { return false }
        return code == .corruptData || code == .notADatabaseFile
    }

    /// Copies the database and its WAL files byte for byte into a new private folder.
    private static func copyDatabase(from original: URL, to copy: URL, workingDirectory: URL) throws {
        let fileManager = FileManager.default
        try fileManager.createDirectory(at: workingDirectory, withIntermediateDirectories: true,
                                        attributes: [.posixPermissions: 0o700])
        // The WAL is copied before the main file: a checkpoint running meanwhile in a live 1.x
        // process then only moves pages the copy already has in its WAL.
        for suffix in ["-wal", "-shm", ""] {
            let source = URL(fileURLWithPath: original.path + suffix)
            guard suffix.isEmpty || fileManager.fileExists(atPath: source.path) else { continue }
            let destination = URL(fileURLWithPath: copy.path + suffix)
            try fileManager.copyItem(at: source, to: destination)
            // Fixtures and app bundles may be read-only; the copy must be writable for SQLite
            // to recover the WAL into its index.
            try fileManager.setAttributes([.posixPermissions: 0o600], ofItemAtPath: destination.path)
        }
    }

    /// Registers the collation, checks version and integrity; returns the schema version.
    private static func prepareCopy(_ connection: SQLiteConnection, bundlePath: String) throws -> Int {
        func corrupt(_ problem: String, _ failure: (any Error)? = nil) -> UpgraderError {
            UpgraderError(.corrupt, "1.x database at \(bundlePath) is damaged (\(problem)): restore "
                + "it from a backup, or repair it with the 1.x app, before upgrading",
                          path: bundlePath, underlying: failure)
        }
        guard LegacyRevisionID.registerCollation(on: connection.handle) == SQLITE_OK else {
            throw corrupt("cannot register the REVID collation",
                          connection.error(SQLITE_ERROR, doing: "registering the REVID collation"))
        }
        let schemaVersion: Int
        do {
            try connection.execute("PRAGMA query_only = 1")
            let version = try connection.prepare("PRAGMA user_version")
            _ = try version.step()
            schemaVersion = Int(version.int64(0))
            // The header may have been stale; SQLite's answer includes the WAL.
            let format: DatabaseFormat = DatabaseFormat.legacySchemaVersions.contains(schemaVersion)
                ? .legacySQLite(schemaVersion: schemaVersion)
                : schemaVersion >= DatabaseFormat.firstCurrentSchemaVersion
                ? .currentSQLite(schemaVersion: schemaVersion) : .unsupportedSchema(version: schemaVersion)
            if let refusal = format.refusal(path: bundlePath) { throw refusal }

            let check = try connection.prepare("PRAGMA quick_check(4)")
            var findings: [String] = []
            while try check.step() {
                // The first row of a failed check only names the schema ("*** in database main ***").
                let line = check.text(0)
                if !line.hasPrefix("***") { findings.append(line) }
            }
            guard findings == ["ok"] else {
                throw corrupt("SQLite's integrity check found: \(findings.joined(separator: "; "))")
            }
        } catch where error is StorageError {
            throw corrupt("\(error)", error)
        }
        for (table, columns) in [("docs", "doc_id, docid"),
                                 ("revs", "sequence, doc_id, revid, parent, current, deleted, json, no_attachments")] {
            do {
                _ = try connection.prepare("SELECT \(columns) FROM \(table) LIMIT 0")
            } catch {
                throw corrupt("it lacks the 1.x table \"\(table)\" with columns \(columns)", error)
            }
        }
        return schemaVersion
    }
}
