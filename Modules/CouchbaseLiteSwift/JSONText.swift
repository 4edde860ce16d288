import Fleece

/// JSON text of documents and their containers (`toJSON()`), written through Fleece so it uses
/// the same escaping and number formatting as the stored data. Unchanged data prints in stored
/// order (as Couchbase Lite prints it); changed dictionaries print with sorted keys.
enum JSONText {
    static func dictionary(_ dictionary: some DictionaryProtocol) -> String {
        let storage: DictionaryStorage
        switch dictionary {
        case let document as Document: storage = document.properties
        case let object as DictionaryObject: storage = object.storage
        default: return "{}"
        }
        if !storage.isChanged, let source = storage.source { return source.value.json() }
        return render { try DocumentEncoder(encoder: $0, blobStore: nil).encode(storage) } ?? "{}"
    }

    static func array(_ array: some ArrayProtocol) -> String {
        guard let object = array as? ArrayObject else { return "[]" }
        if !object.storage.isChanged, let source = object.storage.source { return source.value.json() }
        return render { try DocumentEncoder(encoder: $0, blobStore: nil).encode(object.storage) } ?? "[]"
    }

    private static func render(_ write: (FleeceEncoder) throws -> Void) -> String? {
        let encoder = FleeceEncoder()
        do {
            try write(encoder)
            return try FleeceDocument(bytes: try encoder.finish(), trusted: true).root.json()
        } catch {
            // `toJSON()` cannot throw (the 2.x API): a value the encoder refuses gives the caller's
            // empty container.
            return nil
        }
    }
}
