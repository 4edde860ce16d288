import CRocksDB
import LiteStorage

extension RocksDBDataFile {
    // MARK: Catalog

    func storeID(_ kind: RocksDBLayout.Kind, _ name: String, view: RocksDBView) throws -> UInt32? {
        try handle.get(RocksDBLayout.catalogKey(kind, name), view: view) { bytes -> UInt32 in
            guard bytes.count == 4 else { throw RocksDBRecordCodec.damaged(path) }
            return RocksDBLayout.readBigEndian(bytes, at: 0)
        }
    }

    /// The ID of store `name`, given a new one inside the open transaction when missing.
    private func createStore(_ kind: RocksDBLayout.Kind, _ name: String,
                             in txn: borrowing WriteTransaction) throws -> UInt32 {
        let batch = try batch(txn)
        if let id = try storeID(kind, name, view: .transaction(batch)) { return id }
        let next = try handle.get(RocksDBLayout.nextStoreIDKey, view: .transaction(batch)) { bytes -> UInt32 in
            guard bytes.count == 4 else { throw RocksDBRecordCodec.damaged(path) }
            return RocksDBLayout.readBigEndian(bytes, at: 0)
        } ?? 1
        var idBytes: [UInt8] = []
        RocksDBLayout.appendBigEndian(&idBytes, next)
        var nextBytes: [UInt8] = []
        RocksDBLayout.appendBigEndian(&nextBytes, next + 1)
        put(RocksDBLayout.catalogKey(kind, name), idBytes, in: batch)
        put(RocksDBLayout.nextStoreIDKey, nextBytes, in: batch)
        return next
    }

    /// Store `name` of `kind`, created when missing; one object per name, kept in `cache`.
    private func store<Store>(_ kind: RocksDBLayout.Kind, _ name: String,
                              cache: WritableKeyPath<Catalog, [String: Store]>,
                              make: (UInt32) -> Store) throws -> Store {
        try StoreName.validate(name)
        try checkOpen()
        if let store = catalog.withLock({ $0[keyPath: cache][name] }) { return store }
        var id = try storeID(kind, name, view: try view())
        if id == nil {
            guard !isReadOnly else {
                throw StoreName.missingInReadOnlyFile(kind.description, name, engine: "RocksDB", path: path)
            }
            id = try write { txn in try createStore(kind, name, in: txn) }
        }
        let made = make(id ?? 0)
        return catalog.withLock { StoreName.register(made, as: name, in: &$0[keyPath: cache]) }
    }

    private func names(_ kind: RocksDBLayout.Kind) throws -> [String] {
        let prefix = RocksDBLayout.catalogPrefix(kind)
        let iterator = try handle.iterator(view: try view(), lower: prefix,
                                       upper: ByteKeyRange.successor(ofPrefix: prefix))
        defer { iterator.close() }
        var names: [String] = []
        iterator.seekFirst()
        while try iterator.isValid() {
            names.append(String(decoding: iterator.key.dropFirst(prefix.count), as: UTF8.self))
            iterator.next()
        }
        return names.sorted()
    }

    // MARK: Key stores

    /// The key store `name`, created when missing.
    package func keyStore(_ name: String) throws -> any KeyStore {
        try store(.keyStore, name, cache: \.keyStores) { RocksDBKeyStore(name: name, id: $0, file: self) }
    }

    /// Names of the key stores, sorted.
    package func keyStoreNames() throws -> [String] { try names(.keyStore) }

    /// Deletes key store `name` with its records, sequence and expiration entries and counters.
    package func deleteKeyStore(_ name: String) throws {
        try deleteStore(.keyStore, name, cache: \.keyStores,
                        tags: [RocksDBLayout.recordTag, RocksDBLayout.sequenceTag, RocksDBLayout.expirationTag,
                               RocksDBLayout.metaTag])
    }

    // MARK: Byte-key stores

    /// The byte-key store `name`, created when missing.
    package func byteKeyStore(_ name: String) throws -> any ByteKeyStore {
        try store(.byteKeyStore, name, cache: \.byteStores) { RocksDBByteKeyStore(name: name, id: $0, file: self) }
    }

    /// Names of the byte-key stores, sorted.
    package func byteKeyStoreNames() throws -> [String] { try names(.byteKeyStore) }

    /// Deletes byte-key store `name` and its entries.
    package func deleteByteKeyStore(_ name: String) throws {
        try deleteStore(.byteKeyStore, name, cache: \.byteStores, tags: [RocksDBLayout.byteKeyTag])
    }

    /// Deletes store `name` of `kind`: its catalog entry, every entry under `tags` with its
    /// ID, and its counters.
    private func deleteStore<Store>(_ kind: RocksDBLayout.Kind, _ name: String,
                                    cache: WritableKeyPath<Catalog, [String: Store]>, tags: [UInt8]) throws {
        try StoreName.validate(name)
        try write { txn in
            let batch = try batch(txn)
            guard let id = try storeID(kind, name, view: .transaction(batch)) else { return }
            for tag in tags {
                let prefix = RocksDBLayout.prefix(tag, id)
                try deleteRange(lower: prefix, upper: ByteKeyRange.successor(ofPrefix: prefix), in: batch)
            }
            delete(RocksDBLayout.catalogKey(kind, name), in: batch)
            transaction?.stores[id] = nil
        }
        catalog.withLock { _ = $0[keyPath: cache].removeValue(forKey: name) }
    }
}
