/// How to open a data file.
package struct DataFileOptions: Sendable, Hashable {
    /// Create the file when it does not exist.
    package var create: Bool
    /// Open for reading only: writes throw `StorageError.readOnly`, nothing on disk changes.
    package var readOnly: Bool

    /// Makes options (by default: open an existing file read-write).
    package init(create: Bool = false, readOnly: Bool = false) {
        self.create = create
        self.readOnly = readOnly
    }
}
