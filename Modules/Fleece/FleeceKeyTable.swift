/// A database's shared keys as they stand at one moment, taken once and handed to every
/// document a scan reads (``FleeceDocument/init(borrowing:keys:)``), instead of a snapshot per
/// document.
package struct FleeceKeyTable: Sendable {
    let sharedKeys: SharedKeys?
    let snapshot: SharedKeys.Snapshot?

    /// The table of `sharedKeys` now (keys added later are not seen; documents read in the same
    /// read snapshot cannot use them).
    package init(_ sharedKeys: SharedKeys?) {
        self.sharedKeys = sharedKeys
        snapshot = sharedKeys?.snapshot()
    }

    /// Whether this table resolves every key as `other` does: the same shared keys at the
    /// same version, or neither has any.
    package func resolvesAlike(_ other: FleeceKeyTable) -> Bool {
        switch (sharedKeys, other.sharedKeys) {
        case (nil, nil): true
        case (let mine?, let theirs?): mine === theirs && snapshot?.version == other.snapshot?.version
        default: false
        }
    }
}

/// A dictionary key looked up once in a ``FleeceKeyTable``: its bytes and, when it is a shared
/// key, its number, so repeated lookups skip hashing the key.
package struct FleeceResolvedKey: Sendable {
    /// The key's UTF-8.
    package let bytes: [UInt8]
    /// Its number in the shared keys, when it has one.
    package let shared: Int?
}

extension FleeceKeyTable {
    /// `key` resolved against this table.
    package func resolve(_ key: String) -> FleeceResolvedKey {
        let bytes = Array(key.utf8)
        let shared = bytes.withUnsafeBytes { snapshot?.index(forBytes: $0) }
        return FleeceResolvedKey(bytes: bytes, shared: shared)
    }
}

extension FleeceDict {
    /// The value for a resolved key, or nil: the same answer as the subscript by string, for
    /// documents read with the table the key was resolved in.
    package func value(for key: FleeceResolvedKey) -> FleeceValue? {
        if let shared = key.shared, let found = value(forSharedKey: shared) { return found }
        guard let index = key.bytes.withUnsafeBytes({ search($0) }) else { return nil }
        return FleeceValue(document: value.document, offset: valueOffset(index))
    }
}
