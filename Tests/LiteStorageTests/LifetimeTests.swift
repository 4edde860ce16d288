import Dispatch
import Foundation
import LiteStorage
import Testing
import TestSupport

/// Misuse of a data file's lifetimes is an error, never undefined behaviour: closing while
/// another thread waits to write, and cursors used after the scope they were made in.
@Suite(.ownThreads) struct LifetimeTests {
    /// One instance's writer waits for another instance's transaction while a third thread
    /// closes the waiting instance: the waiter either writes before the close or gets `closed`;
    /// nothing runs on a closed connection.
    @Test(arguments: StorageEngineKind.allCases)
    func closingWhileAWriterWaitsIsSafe(engine: StorageEngineKind) throws {
        try withTemporaryDirectory { directory in
            let holder = try engine.createDataFile(in: directory)
            defer { try? holder.close() }
            for round in 0..<20 {
                let waiterFile = try engine.open(engine.dataFilePath(in: directory))
                let store = try waiterFile.keyStore("default")
                let holding = DispatchSemaphore(value: 0), release = DispatchSemaphore(value: 0)
                let held = startThread { () throws -> Bool in
                    try holder.write { _ in
                        holding.signal()
                        release.wait()
                    }
                    return true
                }
                holding.wait()
                let waiter = startThread { () -> String in
                    do {
                        try waiterFile.write { txn in _ = try store.set(Record(key: "r\(round)", body: [1]), ifSequence: nil, in: txn) }
                        return "wrote"
                    } catch let error as StorageError where error.code == .notOpen {
                        return "closed"
                    } catch {
                        return "unexpected \(error)"
                    }
                }
                let closer = startThread { () throws -> Bool in
                    try waiterFile.close()
                    return true
                }
                release.signal()
                #expect(try held.wait())
                #expect(try closer.wait())
                let outcome = try waiter.wait()
                #expect(outcome == "wrote" || outcome == "closed", "\(outcome)")
            }
        }
    }

    /// A cursor made inside a read snapshot and used after it ended: an error, or (where the
    /// engine's cursor owns its view) the snapshot's data, never a crash or another view's rows.
    @Test(arguments: StorageEngineKind.allCases)
    func aCursorOutlivingItsSnapshotIsAnErrorOrStillCorrect(engine: StorageEngineKind) throws {
        try withTemporaryDataFile(engine) { file in
            let store = try file.keyStore("default")
            try file.write { txn in
                for index in 0..<5 { try store.set(Record(key: "k\(index)", body: [UInt8(index)]), ifSequence: nil, in: txn) }
            }
            let cursor = try file.withReadSnapshot { try store.enumerate(options: .init()) }
            defer { cursor.close() }
            try file.write { txn in try store.set(Record(key: "k9", body: [9]), ifSequence: nil, in: txn) }
            do {
                var keys: [String] = []
                while let record = try cursor.next() { keys.append(record.key) }
                #expect(keys == ["k0", "k1", "k2", "k3", "k4"])
            } catch let error as StorageError {
                #expect(error.code == .unsupported)
            }
        }
    }

    /// A cursor made inside a write transaction and used after it committed.
    @Test(arguments: StorageEngineKind.allCases)
    func aCursorOutlivingItsTransactionIsAnErrorOrStillCorrect(engine: StorageEngineKind) throws {
        try withTemporaryDataFile(engine) { file in
            let store = try file.keyStore("default")
            let cursor = try file.write { (txn: borrowing WriteTransaction) throws -> RecordEnumerator in
                for index in 0..<3 { try store.set(Record(key: "k\(index)", body: [1]), ifSequence: nil, in: txn) }
                return try store.enumerate(options: .init())
            }
            defer { cursor.close() }
            do {
                var keys: [String] = []
                while let record = try cursor.next() { keys.append(record.key) }
                #expect(keys == ["k0", "k1", "k2"])
            } catch let error as StorageError {
                #expect(error.code == .unsupported)
            }
        }
    }
}
