import CRocksDB
import CSQLite
import Foundation
import LiteStorage

/// A baseline: the raw C API of an engine doing the benchmark's work with no layer on top.
protocol RawStorage {
    /// Creates the file at `path` and inserts the data set in transactions of `batchSize`.
    static func insert(path: String, data: StorageBenchmarks.DataSet, batchSize: Int) throws
    /// Opens the file made by `insert` for reading.
    static func openReader(path: String) throws -> any RawReader
}

/// A baseline failure, as a `StorageError`.
func failure(_ text: String) -> StorageError { StorageError(.unexpectedError, "baseline: \(text)") }
