import Foundation
import LiteDatabase
import LiteStorage
import LiteQuery
import LiteText

extension Database {
    /// The names of the database's indexes (its own, and those Couchbase Lite made in the file).
    public var indexes: [String] {
        do {
            let names = try core.dataFile.byteKeyStoreNames()
            var result = names.filter { $0.hasPrefix("fts:") || $0.hasPrefix("value:") }.map(Self.indexName(ofStore:))
            result += try core.dataFile.foreignIndexes().map(\.name)
            // An adopted index of Couchbase Lite's is both ours and the file's: listed once.
            return Array(Set(result)).sorted()
        } catch {
            Self.log.log(.error, .database, "Cannot list the indexes of \"\(name)\": \(error)")
            return []
        }
    }

    /// Creates an index (nothing happens if one with this name and definition exists).
    ///
    /// - Throws: `.invalidParameter` when an index of that name exists with another definition,
    ///   or the definition is not usable (an unknown language, no items).
    public func createIndex(_ index: Index, withName name: String) throws {
        guard !name.isEmpty else { throw CouchbaseLiteError(.invalidParameter, "an index needs a name") }
        do {
            switch index {
            case let fullText as FullTextIndex:
                var language = fullText.languageSetting
                // The device's language without a stemmer means none; a chosen one is an error.
                if !fullText.languageIsChosen, let device = language, StemmingLanguage(code: device) == nil { language = nil }
                let definition = FullTextIndexDefinition(name: name, properties: fullText.items.map(\.property),
                                                         language: language, ignoresDiacritics: fullText.ignoresAccents)
                _ = try LiteText.FullTextIndex.create(definition, in: core)
            case let value as ValueIndex:
                guard !value.items.isEmpty else { throw CouchbaseLiteError(.invalidParameter, "index \"\(name)\" has no items") }
                _ = try LiteQuery.ValueIndex.create(name: name, definition: value.json, in: core)
            default:
                throw CouchbaseLiteError(.invalidParameter, "\(type(of: index)) is not an index this database can create")
            }
        } catch {
            let converted = CouchbaseLiteError(error, context: "cannot create index \"\(name)\"")
            // A definition the query or text layer refuses is a bad argument to this call.
            guard converted.code == .invalidQuery || converted.code == .invalidParameter else { throw converted }
            throw CouchbaseLiteError(.invalidParameter, "cannot create index \"\(name)\": \(converted.message)", underlying: error)
        }
    }

    /// Deletes the index named `name` (nothing happens when there is none).
    public func deleteIndex(forName name: String) throws {
        try CouchbaseLiteError.wrapping("deleting index \"\(name)\"") {
            try core.inTransaction { _ in
                try LiteText.FullTextIndex.delete(name, in: core)
                try LiteQuery.ValueIndex.delete(name, in: core)
            }
        }
    }


    /// The index name a store holds (percent-decoding what the store name had to escape).
    static func indexName(ofStore store: String) -> String {
        let encoded = store.drop { $0 != ":" }.dropFirst()
        return String(encoded).removingPercentEncoding ?? String(encoded)
    }
}
