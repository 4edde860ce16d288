import CSQLite
import LiteStorage

extension SQLiteDataFile {
    /// LiteCore's indexes in this file, found where each Couchbase Lite version lists them:
    /// the `indexes` table (2.8), the `kv_fts_map` table (2.0's FTS aliases), and
    /// `sqlite_master` (expression indexes over `fl_` functions and FTS4 tables of any 2.x);
    /// plus definitions a conversion carried here. A value index without an `indexes` row gets
    /// its JSON expression from its SQL when that is a list of plain properties.
    package func foreignIndexes() throws -> [ForeignIndex] {
        var byName: [String: ForeignIndex] = [:]
        for index in try carriedForeignIndexes() { byName[index.name] = index }
        try withReader { connection in
            if try tableExists("indexes", connection) {
                let statement = try connection.prepare("SELECT name, type, keyStore, expression FROM indexes")
                defer { statement.finalize() }
                while try statement.step() {
                    let kind = ForeignIndex.Kind(rawValue: Int(statement.int64(1))) ?? .value
                    byName[statement.text(0)] = ForeignIndex(
                        name: statement.text(0), kind: kind, keyStore: statement.text(2),
                        expression: statement.isNull(3) ? nil : statement.text(3), sql: nil)
                }
            }
            // SQL of expression indexes and FTS tables, by the index name LiteCore gives them.
            let master = try connection.prepare("""
                SELECT type, name, tbl_name, sql FROM sqlite_master WHERE sql IS NOT NULL AND (\
                (type = 'index' AND tbl_name GLOB 'kv_*' AND sql GLOB '*fl_*') OR \
                (type = 'table' AND name GLOB 'kv_*::*' AND sql GLOB '*VIRTUAL*'))
                """)
            defer { master.finalize() }
            while try master.step() {
                let type = master.text(0), name = master.text(1), table = master.text(2), sql = master.text(3)
                let storeName = String(table.dropFirst(3).prefix { $0 != ":" })
                let indexName = type == "table" ? String(name.split(separator: ":", omittingEmptySubsequences: true).last ?? "") : name
                guard !indexName.isEmpty else { continue }
                var index = byName[indexName] ?? ForeignIndex(name: indexName, kind: type == "table" ? .fullText : .value,
                                                              keyStore: storeName)
                index.sql = sql
                // Before 2.5 the SQL is the only record of a value index's definition.
                if index.expression == nil, type == "index" { index.expression = LiteCoreIndexSQL(sql)?.jsonExpression }
                byName[indexName] = index
            }
            if try tableExists("kv_fts_map", connection) {
                let aliases = try connection.prepare("SELECT alias, expression FROM kv_fts_map")
                defer { aliases.finalize() }
                while try aliases.step() {
                    // 2.0: the alias is the FTS table's name ("kv_default::index").
                    let alias = aliases.text(0)
                    let indexName = String(alias.split(separator: ":", omittingEmptySubsequences: true).last ?? Substring(alias))
                    var index = byName[indexName] ?? ForeignIndex(name: indexName, kind: .fullText,
                                                                  keyStore: String(alias.dropFirst(3).prefix { $0 != ":" }))
                    if index.expression == nil, !aliases.isNull(1) { index.expression = aliases.text(1) }
                    byName[indexName] = index
                }
            }
        }
        return byName.values.sorted { $0.name < $1.name }
    }
}
