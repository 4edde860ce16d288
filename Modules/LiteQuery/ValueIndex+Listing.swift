import FoundationEssentials
import LiteDatabase
import LiteStorage
import LiteSupport

extension ValueIndex {
    /// A value index as its file stores it, for listings (nothing is opened or registered).
    package struct Stored: Sendable, Hashable {
        /// The index's name.
        package var name: String
        /// Its definition: a JSON array of expressions.
        package var definition: String
        /// Whether it is an adopted copy of one of LiteCore's indexes.
        package var isAdopted: Bool
        /// Whether it reflects every write to the documents (otherwise the next writable open
        /// catches it up).
        package var isCurrent: Bool
    }

    /// The value indexes stored in `core`'s file, by name.
    package static func stored(in core: DatabaseCore) throws -> [Stored] {
        let state = try core.documentStoreState()
        var result: [Stored] = []
        for storeName in try core.dataFile.byteKeyStoreNames() where storeName.hasPrefix("value:") {
            let store = try core.dataFile.byteKeyStore(storeName)
            guard let definition = try store.get(definitionKey) else { continue }
            let encoded = String(storeName.dropFirst("value:".count))
            result.append(Stored(name: encoded.removingPercentEscapes() ?? encoded,
                                 definition: String(decoding: definition, as: UTF8.self),
                                 isAdopted: try store.get(LiteCoreIndexAdoption.adoptedKey) != nil,
                                 isCurrent: try recordedState(in: store) == state))
        }
        return result.sorted { $0.name < $1.name }
    }
}
