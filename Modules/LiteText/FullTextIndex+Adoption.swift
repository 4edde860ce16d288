import Fleece
import FoundationEssentials
import LiteDatabase
import LiteStorage

extension FullTextIndex {
    /// Our definition of a full-text index Couchbase Lite made in the file (an FTS4 table of a
    /// 2.x file, a `kv_fts_map` alias of a 2.0 file, or either carried through a conversion):
    /// the same name, the properties of its expression, the text analysis of its tokenizer
    /// arguments. Nil when it is not a full-text index of the documents or its expression is
    /// not a list of property paths.
    static func definition(adopting foreign: ForeignIndex) -> FullTextIndexDefinition? {
        guard foreign.kind == .fullText, foreign.keyStore == DatabaseCore.StoreNames.documents,
              let expression = foreign.expression,
              let document = try? FleeceDocument(json: expression),   // allowed: an expression we cannot read is not adopted
              let items = document.root.array, !items.isEmpty else { return nil }
        var properties: [String] = []
        for item in items {
            // 2.8 lists each item as an expression (`[".name"]`), 2.0 as a bare path (`".name"`).
            let path = item.string ?? (item.array?.count == 1 ? item.array?[0]?.string : nil)
            guard let path, path.hasPrefix("."), path.count > 1 else { return nil }
            properties.append(String(path.dropFirst()))
        }
        let options = LiteCoreTokenizerOptions(arguments: foreign.sql.flatMap(LiteCoreTokenizerOptions.arguments(inTableSQL:)) ?? [])
        var language = options.language
        if let code = language, StemmingLanguage(code: code) == nil { language = nil }
        return FullTextIndexDefinition(name: foreign.name, properties: properties, language: language,
                                       ignoresDiacritics: options.ignoresDiacritics, stemming: options.stemming,
                                       stopWords: options.stopWords, stopWordsTakePositions: false)
    }

    /// Whether `core`'s file holds a full-text index of Couchbase Lite's called `name` that
    /// opening the file for writing would give a copy of ours.
    package static func isAdoptable(_ name: String, in core: DatabaseCore) throws -> Bool {
        try core.dataFile.foreignIndexes().contains { $0.name == name && definition(adopting: $0) != nil }
    }

    /// Builds our index beside each of Couchbase Lite's full-text indexes in `core`'s file that
    /// has none yet (their FTS4 tables stay, kept by SQLite for Couchbase Lite).
    static func adoptForeignIndexes(in core: DatabaseCore) throws -> [FullTextIndex] {
        let existing = Set(try core.dataFile.byteKeyStoreNames())
        var adopted: [FullTextIndex] = []
        for foreign in try core.dataFile.foreignIndexes() {
            guard let definition = definition(adopting: foreign), !existing.contains(definition.storeName) else { continue }
            adopted.append(try create(definition, in: core))
        }
        return adopted
    }
}
