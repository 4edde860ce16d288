import FoundationEssentials

extension DataFile {
    /// The definitions a conversion carried into this file (the ``ForeignIndex/carrierStoreName``
    /// byte-key store), empty when there are none.
    package func carriedForeignIndexes() throws -> [ForeignIndex] {
        guard try byteKeyStoreNames().contains(ForeignIndex.carrierStoreName) else { return [] }
        let cursor = try byteKeyStore(ForeignIndex.carrierStoreName).scanAll()
        defer { cursor.close() }
        var indexes: [ForeignIndex] = []
        while let entry = try cursor.next() {
            do {
                indexes.append(try JSONDecoder().decode(ForeignIndex.self, from: Data(entry.value)))
            } catch {
                throw StorageError(.corruptData, "\"\(path)\": the carried definition of index "
                                   + "\"\(String(decoding: entry.key, as: UTF8.self))\" cannot be read")
            }
        }
        return indexes
    }

    /// Records `indexes` in the carrier store (inside the caller's transaction, or its own).
    package func carry(_ indexes: [ForeignIndex]) throws {
        guard !indexes.isEmpty else { return }
        try write { txn in
            let store = try byteKeyStore(ForeignIndex.carrierStoreName)
            for index in indexes {
                try store.put(Array(index.name.utf8), Array(try JSONEncoder().encode(index)), in: txn)
            }
        }
    }

    /// Forgets foreign index `name`: removes what the file itself holds of it (see
    /// ``ForeignIndexHolding``) and its carried definition, inside the current write
    /// transaction or its own. The query engine calls this when an adopted index is deleted, so
    /// that the program that made the original does not keep a definition the user deleted.
    /// - Returns: whether there was anything to remove.
    @discardableResult
    package func dropForeignIndex(named name: String) throws -> Bool {
        try write { txn in
            var dropped = false
            if let holder = self as? any ForeignIndexHolding {
                dropped = try holder.dropNativeForeignIndex(named: name)
            }
            if try byteKeyStoreNames().contains(ForeignIndex.carrierStoreName) {
                let store = try byteKeyStore(ForeignIndex.carrierStoreName)
                if try store.delete(Array(name.utf8), in: txn) { dropped = true }
            }
            return dropped
        }
    }
}
