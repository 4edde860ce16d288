/// The Couchbase Lite 2.x SQLite schema as data (LiteCore `SQLiteDataFile.cc`,
/// `SQLiteKeyStore.cc`; summarised in `shared/reference/formats.md` §2.3).
enum SQLiteSchema {
    /// `PRAGMA user_version` written to new files: 302 = Couchbase Lite 2.7/2.8 (`kvmeta.purgeCnt`).
    static let currentVersion: Int64 = 302
    /// The oldest 2.x schema (Couchbase Lite 2.0); below it is a 1.x database.
    static let minimumVersion: Int64 = 201
    /// Versions from here on are 3.x and later.
    static let firstTooNewVersion: Int64 = 400
    /// The version that added `kvmeta.purgeCnt`.
    static let purgeCountVersion: Int64 = 302

    /// Statements that make a new file (order matters: auto_vacuum before the first table).
    static let createFile = """
        PRAGMA auto_vacuum=incremental;
        PRAGMA journal_mode=WAL;
        BEGIN;
        CREATE TABLE kvmeta (name TEXT PRIMARY KEY, lastSeq INTEGER DEFAULT 0, purgeCnt INTEGER DEFAULT 0) WITHOUT ROWID;
        PRAGMA user_version=302;
        COMMIT;
        """

    /// Settings applied on every open, as LiteCore does.
    static let perConnectionSettings = cacheSettings + """
        PRAGMA synchronous=normal;
        PRAGMA journal_size_limit=2097152;
        PRAGMA case_sensitive_like=true;
        PRAGMA busy_timeout=10000;
        """

    /// Page cache and memory-mapped reads for every connection, Couchbase Lite 2.8's sizes on
    /// Linux (10 MB cache, 50 MB mapped): a query scan then reads pages in place instead of
    /// copying each one out of the kernel.
    static let cacheSettings = """
        PRAGMA cache_size=-10240;
        PRAGMA mmap_size=52428800;

        """

    /// Upgrades a 201/301 file's `kvmeta` to 302.
    static let addPurgeCount = """
        ALTER TABLE kvmeta ADD COLUMN purgeCnt INTEGER DEFAULT 0;
        PRAGMA user_version=302;
        """

    /// The table of a key store, `kv_<name>`.
    static func table(_ store: String) -> String { "kv_\(store)" }

    /// The table of a byte-key store. LiteCore lists key stores as tables named `kv_*`, and its
    /// own index tables start with `kv_` too; `bk_` keeps ours out of both.
    static func byteTable(_ store: String) -> String { "bk_\(store)" }

    /// An identifier as SQL text: bare when it is only letters, digits and `_` (so the stored
    /// schema reads exactly like LiteCore's), double-quoted otherwise.
    static func quoted(_ identifier: String) -> String {
        let bare = identifier.utf8.allSatisfy { byte in
            (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")) || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
                || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || byte == UInt8(ascii: "_")
        }
        if bare { return identifier }
        if !identifier.utf8.contains(UInt8(ascii: "\"")) { return "\"" + identifier + "\"" }
        return "\"" + identifier.replacing("\"", with: "\"\"") + "\""
    }

    /// Creates a key store's table exactly as LiteCore 2.x does, plus its sequence index.
    /// (No `IF NOT EXISTS`: SQLite keeps the statement text, and the schema must read as LiteCore's;
    /// callers check for the table inside the write transaction.)
    static func createKeyStore(_ store: String) -> String {
        let table = table(store)
        return """
            CREATE TABLE \(quoted(table)) (key TEXT PRIMARY KEY, sequence INTEGER, \
            flags INTEGER DEFAULT 0, version BLOB, body BLOB);
            CREATE UNIQUE INDEX IF NOT EXISTS \(quoted(table + "_seqs")) ON \(quoted(table)) (sequence);
            """
    }

    /// The sequence index LiteCore creates on demand (`kv_X_seqs`).
    static func createSequenceIndex(_ store: String) -> String {
        let table = table(store)
        return "CREATE UNIQUE INDEX IF NOT EXISTS \(quoted(table + "_seqs")) ON \(quoted(table)) (sequence)"
    }

    /// Adds the lazily created expiration column and its partial index.
    static func addExpiration(_ store: String) -> String {
        let table = table(store)
        return """
            ALTER TABLE \(quoted(table)) ADD COLUMN expiration INTEGER;
            CREATE INDEX IF NOT EXISTS \(quoted(table + "_expiration")) ON \(quoted(table)) (expiration) \
            WHERE expiration not null;
            """
    }

    /// Creates a byte-key store's table; BLOB keys compare with memcmp (unsigned byte order).
    /// With `linkedTo`, a third column holds the rowid of the row of key-store table `linkedTo`
    /// whose key is the entry's value (see ``linkColumn(_:)``).
    static func createByteKeyStore(_ store: String, linkedTo keyTable: String? = nil) -> String {
        "CREATE TABLE IF NOT EXISTS \(quoted(byteTable(store))) (key BLOB PRIMARY KEY, value BLOB"
            + (keyTable.map { ", \(quoted(linkColumn($0))) INTEGER" } ?? "") + ") WITHOUT ROWID"
    }

    /// The name of an index table's column linking its entries to the rows of `keyTable`; the
    /// name says which table, so the schema alone tells how a store is linked.
    static func linkColumn(_ keyTable: String) -> String {
        linkPrefix + keyTable
    }

    /// What every link column's name starts with.
    static let linkPrefix = "rowid in "
}
