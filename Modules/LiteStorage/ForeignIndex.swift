/// An index that a data file declares but this project's query engine did not make: one of
/// LiteCore's (a SQLite expression index over `fl_value`, an FTS4 table, an array index, listed
/// in the 2.8 `indexes` table, the 2.0 `kv_fts_map` table, or only in `sqlite_master`).
///
/// Conversions carry these definitions to the new file (in the byte-key store
/// ``carrierStoreName``), so the query engine can adopt or rebuild them whatever the engine.
package struct ForeignIndex: Sendable, Hashable, Codable {
    /// What kind of index it is (LiteCore's `C4IndexType` numbers).
    package enum Kind: Int, Sendable, Hashable, Codable {
        /// A value index.
        case value = 0
        /// A full-text index.
        case fullText = 1
        /// An array (UNNEST) index.
        case array = 2
        /// A predictive index (Enterprise Edition).
        case predictive = 3
    }

    /// The index's name as its creator gave it.
    package var name: String
    /// Its kind.
    package var kind: Kind
    /// The key store it indexes (`default`).
    package var keyStore: String
    /// Its expression in LiteCore's JSON query syntax, when the file records it.
    package var expression: String?
    /// The SQL that defines it in the file it came from, when known.
    package var sql: String?

    /// Makes a definition.
    package init(name: String, kind: Kind, keyStore: String, expression: String? = nil, sql: String? = nil) {
        self.name = name
        self.kind = kind
        self.keyStore = keyStore
        self.expression = expression
        self.sql = sql
    }

    /// The byte-key store a converted file keeps carried definitions in (key: the name,
    /// value: the definition as JSON). Its SQLite table, `bk_liteCoreIndexes`, is not one
    /// LiteCore reads (it takes only `kv_` tables for key stores).
    package static let carrierStoreName = "liteCoreIndexes"
}
