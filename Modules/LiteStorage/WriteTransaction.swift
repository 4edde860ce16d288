/// The open write transaction of one data file, lent to the body of `DataFile.write`; every
/// mutating `KeyStore` and `ByteKeyStore` call takes it, so a write outside a transaction does
/// not compile.
///
/// Non-copyable and only lent (`borrowing`), it cannot be stored or outlive the body; not
/// `Sendable`, it cannot reach another thread. So whoever holds one runs on the writing thread
/// of its file, inside the transaction. A store checks only that the transaction is its own
/// file's (passing one file's transaction to another file's store is refused).
///
/// ```swift
/// try file.write { txn in try store.set(Record(key: "doc", body: bytes), ifSequence: 0, in: txn) }
/// ```
package struct WriteTransaction: ~Copyable {
    /// The coordinator of the data file instance whose transaction this is.
    private let owner: ObjectIdentifier

    init(owner: AnyObject) {
        self.owner = ObjectIdentifier(owner)
    }

    /// Throws `StorageError.invalidParameter` unless this is the transaction of the file whose
    /// coordinator is `coordinator`.
    package func check<Snapshot>(belongsTo coordinator: TransactionCoordinator<Snapshot>) throws {
        guard owner == ObjectIdentifier(coordinator) else {
            throw StorageError(.invalidParameter, "\(coordinator.fileDescription): a write was given another "
                               + "file's transaction; write inside this file's write { txn in … }")
        }
    }
}

@available(*, unavailable, message: "a write transaction stays on its writing thread")
extension WriteTransaction: Sendable {}
