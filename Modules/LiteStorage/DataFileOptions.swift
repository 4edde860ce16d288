import LiteSupport

/// How to open a data file.
package struct DataFileOptions: Sendable, Hashable {
    /// Create the file when it does not exist.
    package var create: Bool
    /// Open for reading only: writes throw `StorageError.readOnly`, nothing on disk changes.
    package var readOnly: Bool
    /// How to read values out of record bodies, for engines that offer SQL functions over
    /// them (the SQLite engine registers Couchbase Lite's `fl_value` with it). Nil: none.
    package var valueReader: (any RecordValueReader)?
    /// The key the engine encrypts everything it writes with, and needs to read the file.
    /// Nil: the file is (and must be) plaintext.
    package var encryptionKey: AES256Key?

    /// Makes options (by default: open an existing plaintext file read-write).
    package init(create: Bool = false, readOnly: Bool = false, valueReader: (any RecordValueReader)? = nil,
                 encryptionKey: AES256Key? = nil) {
        self.create = create
        self.readOnly = readOnly
        self.valueReader = valueReader
        self.encryptionKey = encryptionKey
    }

    /// Options are equal when they ask for the same thing from the same reader.
    package static func == (lhs: DataFileOptions, rhs: DataFileOptions) -> Bool {
        lhs.create == rhs.create && lhs.readOnly == rhs.readOnly
            && lhs.valueReader.map(ObjectIdentifier.init) == rhs.valueReader.map(ObjectIdentifier.init)
            && lhs.encryptionKey == rhs.encryptionKey
    }

    /// Hashes what equality compares.
    package func hash(into hasher: inout Hasher) {
        hasher.combine(create)
        hasher.combine(readOnly)
        hasher.combine(valueReader.map(ObjectIdentifier.init))
        hasher.combine(encryptionKey)
    }
}
