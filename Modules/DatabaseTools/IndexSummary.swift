import FoundationEssentials
import LiteDatabase
import LiteQuery
import LiteStorage
import LiteText

/// One index of a database file as the tools list it: ours (value and full-text), and those
/// real Couchbase Lite made (LiteCore's), adopted or not; `Codable` for `--json`.
package struct IndexSummary: Codable, Sendable, Hashable {
    /// Who made the index and who keeps it.
    package enum Origin: String, Codable, Sendable, Hashable {
        /// This project's own index.
        case ours
        /// LiteCore's index, adopted: ours is kept in step, LiteCore's stays in the file.
        case adopted
        /// LiteCore's index only (a kind or expression this project does not adopt, or a file
        /// opened read-only that was never opened for writing here).
        case liteCore
    }

    /// The index's name.
    package var name: String
    /// `value`, `full-text`, `array` or `predictive`.
    package var kind: String
    /// Its definition: JSON expressions for a value index, the full-text settings as JSON, or
    /// LiteCore's SQL when that is all the file records.
    package var definition: String?
    /// Who made it.
    package var origin: Origin
    /// For our indexes: whether it reflects every document write (a stale one is caught up on
    /// the next writable open).
    package var upToDate: Bool?

    /// Every index of the open database `core`, by name.
    package static func all(in core: DatabaseCore) throws -> [IndexSummary] {
        var byName: [String: IndexSummary] = [:]
        for foreign in try core.dataFile.foreignIndexes() {
            byName[foreign.name] = IndexSummary(name: foreign.name, kind: kindName(foreign.kind),
                                                definition: foreign.expression ?? foreign.sql, origin: .liteCore)
        }
        for index in try ValueIndex.stored(in: core) {
            byName[index.name] = IndexSummary(name: index.name, kind: "value", definition: index.definition,
                                              origin: index.isAdopted && byName[index.name] != nil ? .adopted : .ours,
                                              upToDate: index.isCurrent)
        }
        for index in try FullTextIndex.openAll(in: core) {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            let definition = String(decoding: try encoder.encode(index.definition), as: UTF8.self)
            byName[index.definition.name] = IndexSummary(name: index.definition.name, kind: "full-text",
                                                         definition: definition, origin: .ours)
        }
        return byName.values.sorted { $0.name < $1.name }
    }

    /// LiteCore's name for an index kind.
    static func kindName(_ kind: ForeignIndex.Kind) -> String {
        switch kind {
        case .value: "value"
        case .fullText: "full-text"
        case .array: "array"
        case .predictive: "predictive"
        }
    }

    /// `name<TAB>kind`, with who made it when that is not us (`cblite indexes`).
    package var listLine: String {
        switch origin {
        case .ours: "\(name)\t\(kind)"
        case .adopted: "\(name)\t\(kind) (adopted from Couchbase Lite)"
        case .liteCore: "\(name)\t\(kind) (Couchbase Lite)"
        }
    }

    /// `name (kind, origin): definition` (`cblite info`).
    package var text: String {
        var facts = [kind]
        switch origin {
        case .ours: break
        case .adopted: facts.append("adopted from Couchbase Lite")
        case .liteCore: facts.append("Couchbase Lite's")
        }
        if upToDate == false { facts.append("behind the documents") }
        return "\(name) (\(facts.joined(separator: ", ")))" + (definition.map { ": " + $0 } ?? "")
    }
}
