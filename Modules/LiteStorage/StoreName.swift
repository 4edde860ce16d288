/// The rule for key-store and byte-key-store names, the same for every engine.
package enum StoreName {
    /// The longest name accepted, in bytes.
    package static let maximumLength = 200

    /// Checks a store name: 1…200 characters from `A–Z a–z 0–9 _ - . : %`.
    ///
    /// The set is what LiteCore accepts for key stores and collections plus `.` and `:`
    /// (used by index names); it needs no quoting in SQL or escaping in RocksDB keys.
    /// Names that differ only in letter case must not be used for different stores: SQLite
    /// table names ignore case.
    package static func validate(_ name: String) throws {
        let bytes = Array(name.utf8)
        guard !bytes.isEmpty, bytes.count <= maximumLength else {
            throw StorageError(.invalidParameter,
                               "store name \"\(name)\" must be 1 to \(maximumLength) characters long")
        }
        for byte in bytes {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"), UInt8(ascii: "-"),
                 UInt8(ascii: "."), UInt8(ascii: ":"), UInt8(ascii: "%"):
                continue
            default:
                throw StorageError(.invalidParameter,
                                   "store name \"\(name)\" may only hold letters, digits and _ - . : %")
            }
        }
    }

    /// What opening a missing store throws in a file opened read-only, where it cannot be made.
    package static func missingInReadOnlyFile(_ kind: String, _ name: String, engine: String,
                                              path: String) -> StorageError {
        StorageError(.notFound, "\(engine) database \"\(path)\" has no \(kind) \"\(name)\" "
                     + "(opened read-only, so it cannot be created)")
    }

    /// `store`, or the one another thread put in `stores` under `name` first: engines make a
    /// store object outside their lock, and every caller must get the same one.
    package static func register<Store>(_ store: Store, as name: String, in stores: inout [String: Store]) -> Store {
        if let existing = stores[name] { return existing }
        stores[name] = store
        return store
    }
}
