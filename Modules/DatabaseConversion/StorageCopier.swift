import LiteStorage

/// Copies one data file into another, exactly: every key store's records with their
/// sequences, flags, versions, bodies and expirations, each store's last sequence and purge
/// count, and every byte-key store (index data).
///
/// The destination's engine may differ from the source's; its stores must be empty (a new
/// file). Writes go in batches of ``batchSize`` records per transaction.
///
/// ```swift
/// try StorageCopier.copy(from: source, to: destination) { done in progress.update(done) }
/// ```
package enum StorageCopier {
    /// Records (or byte-key entries) written per destination transaction.
    package static let batchSize = 2_000

    /// How many records and byte-key entries the copy will write (the progress total).
    package static func workCount(of file: any DataFile) throws -> Int {
        var total = 0
        for name in try file.keyStoreNames() { total += try file.keyStore(name).recordCount(includeDeleted: true) }
        for name in try file.byteKeyStoreNames() { total += try file.byteKeyStore(name).count() }
        return total
    }

    /// Copies everything in `source` into `destination`, reading one consistent snapshot.
    ///
    /// - Parameter progress: called after each batch with the number of items written so far;
    ///   an error it throws stops the copy (wrapped, as the `underlying` of the error thrown).
    /// - Throws: `DatabaseToolsError.ioFailure` carrying the storage error, naming the store.
    package static func copy(from source: any DataFile, to destination: any DataFile,
                             progress: (Int) throws -> Void = { _ in }) throws {
        try source.withReadSnapshot {
            var done = 0
            for name in try source.keyStoreNames() {
                try copyKeyStore(name, from: source, to: destination, done: &done, progress: progress)
            }
            for name in try source.byteKeyStoreNames() where name != ForeignIndex.carrierStoreName {
                try copyByteKeyStore(name, from: source, to: destination, done: &done, progress: progress)
            }
            // LiteCore's own index definitions (or those carried here earlier) go with the data,
            // so the query engine can adopt or rebuild them in the new file.
            try DatabaseToolsError.wrapping(.ioFailure, "carrying index definitions to \(destination.path)") {
                try destination.carry(try source.foreignIndexes())
            }
        }
    }

    private static func copyKeyStore(_ name: String, from source: any DataFile, to destination: any DataFile,
                                     done: inout Int, progress: (Int) throws -> Void) throws {
        try DatabaseToolsError.wrapping(.ioFailure, "copying key store \"\(name)\" to \(destination.path)") {
            let from = try source.keyStore(name)
            guard let to = try destination.keyStore(name).importing else {
                throw DatabaseToolsError(.notYetSupported, "the \(destination.engineName) engine cannot import "
                                         + "records with their sequences")
            }
            let cursor = try from.enumerate(since: 0, options: RecordEnumerationOptions(includeDeleted: true))
            defer { cursor.close() }
            try writeInBatches(to: destination, next: { try cursor.next() }, put: { try to.importRecord($0, in: $1) },
                               finish: { txn in
                                   try to.setCounters(lastSequence: try from.lastSequence(),
                                                      purgeCount: try from.purgeCount(), in: txn)
                               },
                               done: &done, progress: progress)
        }
    }

    private static func copyByteKeyStore(_ name: String, from source: any DataFile, to destination: any DataFile,
                                         done: inout Int, progress: (Int) throws -> Void) throws {
        try DatabaseToolsError.wrapping(.ioFailure, "copying byte-key store \"\(name)\" to \(destination.path)") {
            let from = try source.byteKeyStore(name)
            let to = try destination.byteKeyStore(name)
            let cursor = try from.scanAll()
            defer { cursor.close() }
            try writeInBatches(to: destination, next: { try cursor.next() }, put: { try to.put($0.key, $0.value, in: $1) },
                               done: &done, progress: progress)
        }
    }

    /// Writes the items `next` yields into `destination`, ``batchSize`` a transaction, calling
    /// `progress` after each; `finish` runs in the transaction that writes the last item.
    private static func writeInBatches<Item>(to destination: any DataFile, next: () throws -> Item?,
                                             put: (Item, borrowing WriteTransaction) throws -> Void,
                                             finish: (borrowing WriteTransaction) throws -> Void = { _ in },
                                             done: inout Int, progress: (Int) throws -> Void) throws {
        var finished = false
        while !finished {
            let written = try destination.write { (txn: borrowing WriteTransaction) throws -> Int in
                var count = 0
                while count < batchSize {
                    guard let item = try next() else {
                        finished = true
                        break
                    }
                    try put(item, txn)
                    count += 1
                }
                if finished { try finish(txn) }
                return count
            }
            done += written
            try progress(done)
        }
    }
}
