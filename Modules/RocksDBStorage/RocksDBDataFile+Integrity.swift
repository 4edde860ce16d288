import CRocksDB
import LiteStorage

extension RocksDBDataFile {
    /// Reads every entry of the database with RocksDB's block checksums verified (its read
    /// options verify them by default); a corrupt block stops the scan with its error.
    package func checkIntegrity() throws -> [String] {
        try checkOpen()
        let iterator = try handle.iterator(view: .latest, lower: [], upper: nil)
        defer { iterator.close() }
        iterator.seekFirst()
        do {
            while try iterator.isValid() { iterator.next() }
        } catch where error is StorageError {
            return ["RocksDB: \(error)"]
        }
        return []
    }
}
