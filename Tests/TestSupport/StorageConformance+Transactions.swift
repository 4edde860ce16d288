import Foundation
import LiteStorage
import Synchronization
import Testing
import LiteSupport

extension StorageConformance {
    /// A write outside `write { txn in … }` does not compile (every mutating call takes the
    /// transaction); the one mistake left, handing a store another file's transaction, is
    /// refused and writes nothing to either file.
    package static func anotherFilesTransactionIsRefused(_ engine: StorageEngineKind) throws {
        try withTemporaryDirectory { firstDirectory in
            try withTemporaryDirectory { secondDirectory in
                let first = try engine.createDataFile(in: firstDirectory)
                defer { try? first.close() }
                let second = try engine.createDataFile(in: secondDirectory)
                defer { try? second.close() }
                let firstStore = try first.keyStore("default")
                let secondStore = try second.keyStore("default")
                #expect(throws: StorageError(.invalidParameter, "invalid parameter")) {
                    try first.write { txn in try secondStore.set(Record(key: "a"), ifSequence: 0, in: txn) }
                }
                #expect(throws: StorageError(.invalidParameter, "invalid parameter")) {
                    try first.write { txn in try secondStore.purge("a", in: txn) }
                }
                #expect(try secondStore.get("a") == nil)
                #expect(try firstStore.get("a") == nil)
                #expect(!second.isInTransaction)
            }
        }
    }

    /// Inside a transaction reads see its writes; another thread sees nothing until commit.
    package static func uncommittedWritesAreInvisibleToOtherThreads(_ file: any DataFile) throws {
        let store = try file.keyStore("default")
        try file.write { txn in
            try store.set(Record(key: "a", body: [1]), ifSequence: 0, in: txn)
            #expect(try store.get("a")?.body == [1])
            #expect(try store.lastSequence() == 1)
            let seenElsewhere = try onOtherThread { try store.get("a") }
            #expect(seenElsewhere == nil)
            let countElsewhere = try onOtherThread { try store.recordCount() }
            #expect(countElsewhere == 0)
        }
        #expect(try onOtherThread { try store.get("a")?.body } == [1])
    }

    /// A transaction that throws leaves nothing behind, not even its sequence numbers.
    package static func abortDiscardsEverything(_ file: any DataFile) throws {
        struct Boom: Error {}
        let store = try file.keyStore("default")
        let bytes = try file.byteKeyStore("index")
        try file.write { txn in try store.set(Record(key: "kept"), ifSequence: 0, in: txn) }
        #expect(throws: Boom.self) {
            try file.write { txn in
                try store.set(Record(key: "gone", body: [1]), ifSequence: 0, in: txn)
                _ = try store.purge("kept", in: txn)
                try bytes.put([1], [2], in: txn)
                throw Boom()
            }
        }
        #expect(try store.get("gone") == nil)
        #expect(try store.get("kept") != nil)
        #expect(try store.lastSequence() == 1)
        #expect(try store.purgeCount() == 0)
        #expect(try bytes.get([1]) == nil)
        #expect(try file.write { txn in try store.set(Record(key: "next"), ifSequence: 0, in: txn) } == 2)
    }

    /// A key store created inside an aborted transaction does not exist afterwards.
    package static func abortDiscardsCreatedKeyStore(_ file: any DataFile) throws {
        struct Boom: Error {}
        #expect(throws: Boom.self) {
            try file.write { txn in
                let store = try file.keyStore("temporary")
                try store.set(Record(key: "a"), ifSequence: 0, in: txn)
                throw Boom()
            }
        }
        #expect(try !file.keyStoreNames().contains("temporary"))
    }

    /// A `write` inside a `write` joins it: both commit together.
    package static func nestedWriteJoinsOuterTransaction(_ file: any DataFile) throws {
        let store = try file.keyStore("default")
        try file.write { txn in
            try store.set(Record(key: "outer"), ifSequence: 0, in: txn)
            try file.write { txn in try store.set(Record(key: "inner"), ifSequence: 0, in: txn) }
            #expect(file.isInTransaction)
            #expect(try onOtherThread { try store.get("inner") } == nil)
        }
        #expect(!file.isInTransaction)
        #expect(try store.recordCount() == 2)
    }

    /// A snapshot keeps its view while another thread commits; afterwards the new data shows.
    package static func snapshotIsStableWhileWriterCommits(_ file: any DataFile) throws {
        let store = try file.keyStore("default")
        try insert(["a"], into: store, of: file)
        try file.withReadSnapshot {
            #expect(try store.recordCount() == 1)
            try onOtherThread {
                try file.write { txn in
                    try store.set(Record(key: "b"), ifSequence: 0, in: txn)
                    _ = try store.purge("a", in: txn)
                }
            }
            #expect(try store.recordCount() == 1)
            #expect(try store.get("a") != nil)
            #expect(try store.get("b") == nil)
            #expect(try store.lastSequence() == 1)
            #expect(try store.enumerate(since: 0, options: .init()).collect().map(\.key) == ["a"])
        }
        #expect(try store.get("a") == nil)
        #expect(try store.get("b") != nil)
    }

    /// Observers hear about each commit with the stores' sequence ranges; aborts stay silent.
    package static func commitObserverSeesSequenceRange(_ file: any DataFile) throws {
        struct Boom: Error {}
        let store = try file.keyStore("default")
        let events = Locked<[CommitEvent]>([])
        let token = file.addCommitObserver { event in events.withLock { $0.append(event) } }
        try insert(["a", "b"], into: store, of: file)
        _ = try? file.write { txn in try store.set(Record(key: "c"), ifSequence: 0, in: txn); throw Boom() }
        try file.write { txn in _ = try store.purge("a", in: txn) }
        file.removeCommitObserver(token)
        try insert(["d"], into: store, of: file)
        let seen = events.withLock { $0 }
        #expect(seen.count == 2)
        #expect(seen.first?.changes == [.init(store: "default", previousLastSequence: 0, lastSequence: 2, purged: 0)])
        #expect(seen.last?.changes == [.init(store: "default", previousLastSequence: 2, lastSequence: 2, purged: 1)])
        let changed = try store.enumerate(since: seen[0].changes[0].previousLastSequence,
                                          options: .init()).collect().map(\.key)
        #expect(changed == ["b", "d"])
    }

    /// Writers on two threads are serialised: every increment of a counter survives.
    package static func concurrentWritersAreSerialised(_ file: any DataFile) throws {
        let store = try file.keyStore("default")
        try file.write { txn in try store.set(Record(key: "counter", body: [0, 0]), ifSequence: 0, in: txn) }
        let threads = (0..<4).map { _ in
            startThread {
                for _ in 0..<25 {
                    try file.write { txn in
                        guard let current = try store.get("counter") else {
                            throw StorageError(.notFound, "counter vanished")
                        }
                        let value = Int(current.body[0]) << 8 | Int(current.body[1]) + 1
                        try store.set(Record(key: "counter", body: [UInt8(value >> 8), UInt8(value & 0xFF)]),
                                      ifSequence: current.sequence, in: txn)
                    }
                }
            }
        }
        for thread in threads { try thread.wait() }
        let body = try #require(try store.get("counter")).body
        #expect(Int(body[0]) << 8 | Int(body[1]) == 100)
        #expect(try store.lastSequence() == 101)
    }

    /// Many threads reading consistent snapshots while one thread writes batches.
    package static func readersSeeWholeTransactionsWhileOneWrites(_ file: any DataFile) throws {
        let store = try file.keyStore("default")
        let keys = (0..<10).map { "k\($0)" }
        try file.write { txn in for key in keys { try store.set(Record(key: key, body: [0]), ifSequence: nil, in: txn) } }
        let finished = Atomic<Bool>(false)
        let readers = (0..<4).map { _ in
            startThread { () -> Int in
                var rounds = 0
                while !finished.load(ordering: .acquiring) || rounds == 0 {
                    try file.withReadSnapshot {
                        let values = try keys.map { try store.get($0)?.body ?? [] }
                        if Set(values).count != 1 {
                            throw StorageError(.corruptData, "reader saw a partial transaction: \(values)")
                        }
                    }
                    rounds += 1
                }
                return rounds
            }
        }
        for round in 1...40 {
            try file.write { txn in for key in keys { try store.set(Record(key: key, body: [UInt8(round)]), ifSequence: nil, in: txn) } }
        }
        finished.store(true, ordering: .releasing)
        for reader in readers { #expect(try reader.wait() > 0) }
        #expect(try store.get("k3")?.body == [40])
    }

    /// A second instance on the same path waits for the first's transaction, then sees its commit.
    package static func secondInstanceWriterWaitsForFirst(_ engine: StorageEngineKind) throws {
        try withTemporaryDirectory { directory in
            let first = try engine.createDataFile(in: directory)
            defer { try? first.close() }
            let second = try engine.open(first.path)
            defer { try? second.close() }
            let firstStore = try first.keyStore("default")
            let secondStore = try second.keyStore("default")
            let started = DispatchSemaphore(value: 0)
            let waiter = try first.write { (txn: borrowing WriteTransaction) -> ThreadHandle<UInt64> in
                try firstStore.set(Record(key: "a", body: [1]), ifSequence: 0, in: txn)
                let waiter = startThread { () -> UInt64 in
                    started.signal()
                    return try second.write { txn in
                        guard let seen = try secondStore.get("a") else {
                            throw StorageError(.notFound, "the first writer's record is not visible")
                        }
                        return try secondStore.set(Record(key: "a", body: [2]), ifSequence: seen.sequence, in: txn)
                    }
                }
                started.wait()
                return waiter
            }
            #expect(try waiter.wait() == 2)
            #expect(try firstStore.get("a")?.body == [2])
        }
    }
}

extension StorageConformance {
    /// Enumerating inside a transaction merges its inserts, updates and purges with committed
    /// records, in both directions; the committed view is unchanged until commit.
    package static func enumerationInsideTransactionSeesItsWrites(_ file: any DataFile) throws {
        let store = try file.keyStore("default")
        try insert(["b", "d", "f"], into: store, of: file)
        try file.write { txn in
            try store.set(Record(key: "a"), ifSequence: 0, in: txn)
            try store.set(Record(key: "e"), ifSequence: 0, in: txn)
            try store.set(Record(key: "d", body: [4]), ifSequence: 2, in: txn)
            _ = try store.purge("f", in: txn)
            #expect(try store.enumerate().collect().map(\.key) == ["a", "b", "d", "e"])
            #expect(try store.enumerate(options: .init(descending: true)).collect().map(\.key) == ["e", "d", "b", "a"])
            #expect(try store.enumerate(since: 1, options: .init()).collect().map(\.key) == ["a", "e", "d"])
            #expect(try store.get("d")?.body == [4])
            #expect(try store.recordCount() == 4)
            #expect(try onOtherThread { try store.enumerate().collect().map(\.key) } == ["b", "d", "f"])
        }
        #expect(try store.enumerate().collect().map(\.key) == ["a", "b", "d", "e"])
    }

    /// Scanning byte keys inside a transaction sees its puts and deletions.
    package static func byteScanInsideTransactionSeesItsWrites(_ file: any DataFile) throws {
        let store = try file.byteKeyStore("index")
        try file.write { txn in for byte in UInt8(1)...5 { try store.put([byte], [byte], in: txn) } }
        try file.write { txn in
            try store.put([0], [0], in: txn)
            try store.put([3], [33], in: txn)
            _ = try store.delete([2], in: txn)
            _ = try store.delete(range: ByteKeyRange(lower: [5]), in: txn)
            let entries = try store.scanAll().collect()
            #expect(entries.map(\.key) == [[0], [1], [3], [4]])
            #expect(entries.map(\.value) == [[0], [1], [33], [4]])
            #expect(try store.scan(.all, descending: true).collect().map(\.key) == [[4], [3], [1], [0]])
            #expect(try store.count() == 4)
        }
    }
}

extension StorageConformance {
    /// A commit made through another instance on the same path reaches this instance's observers,
    /// and its records are readable here.
    package static func commitsThroughAnotherInstanceAreObserved(_ engine: StorageEngineKind) throws {
        try withTemporaryDirectory { directory in
            let first = try engine.createDataFile(in: directory)
            defer { try? first.close() }
            _ = try first.keyStore("default")
            let second = try engine.open(first.path)
            defer { try? second.close() }
            let events = Locked<[CommitEvent]>([])
            _ = first.addCommitObserver { event in events.withLock { $0.append(event) } }
            let store = try second.keyStore("default")
            try second.write { txn in try store.set(Record(key: "a", body: [1]), ifSequence: 0, in: txn) }
            #expect(events.withLock { $0.map(\.changes) } == [[.init(store: "default", previousLastSequence: 0,
                                                                      lastSequence: 1, purged: 0)]])
            #expect(try first.keyStore("default").get("a")?.body == [1])
        }
    }
}
