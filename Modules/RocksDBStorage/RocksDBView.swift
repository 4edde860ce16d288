/// Which data a RocksDB read sees.
enum RocksDBView {
    /// The latest committed data.
    case latest
    /// The data committed when the snapshot was taken.
    case snapshot(RocksDBSnapshot)
    /// The open transaction's writes over the latest committed data.
    case transaction(RocksDBPendingWrites)

    func readOptions(default options: OpaquePointer) -> OpaquePointer {
        if case .snapshot(let snapshot) = self { return snapshot.readOptions }
        return options
    }
}
