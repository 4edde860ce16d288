import Foundation
import LiteStorage
import Testing

extension StorageConformance {
    // MARK: Byte-key stores

    /// Byte keys are ordered by unsigned bytes (0x80 after 0x7F, shorter prefix first).
    package static func byteKeysAreOrderedUnsigned(_ file: any DataFile) throws {
        let store = try file.byteKeyStore("index")
        let keys: [[UInt8]] = [[0xFF], [0x80], [0x7F], [0x00], [0x01, 0x00], [0x01], []]
        try file.write { txn in for (index, key) in keys.enumerated() { try store.put(key, [UInt8(index)], in: txn) } }
        let scanned = try store.scanAll().collect().map(\.key)
        #expect(scanned == [[], [0x00], [0x01], [0x01, 0x00], [0x7F], [0x80], [0xFF]])
        let backwards = try store.scan(.all, descending: true).collect().map(\.key)
        #expect(backwards == scanned.reversed())
        #expect(try store.get([0x80]) == [1])
        #expect(try store.count() == keys.count)
    }

    /// A prefix scan returns exactly the keys starting with the prefix, including 0xFF edges.
    package static func prefixScanReturnsOnlyThePrefix(_ file: any DataFile) throws {
        let store = try file.byteKeyStore("index")
        let keys: [[UInt8]] = [[1, 0xFF], [1, 0xFF, 0], [1, 0xFF, 0xFF], [2], [1, 0xFE, 9], [0xFF, 0xFF]]
        try file.write { txn in for key in keys { try store.put(key, [], in: txn) } }
        #expect(try store.scan(prefix: [1, 0xFF]).collect().map(\.key) == [[1, 0xFF], [1, 0xFF, 0], [1, 0xFF, 0xFF]])
        #expect(try store.scan(prefix: [0xFF]).collect().map(\.key) == [[0xFF, 0xFF]])
        #expect(try store.scan(prefix: [1], descending: true).collect().map(\.key)
                == [[1, 0xFF, 0xFF], [1, 0xFF, 0], [1, 0xFF], [1, 0xFE, 9]])
    }

    /// A range is half-open: the upper key is excluded.
    package static func byteRangeExcludesUpperBound(_ file: any DataFile) throws {
        let store = try file.byteKeyStore("index")
        try file.write { txn in for byte in UInt8(0)..<10 { try store.put([byte], [byte], in: txn) } }
        let range = ByteKeyRange(lower: [3], upper: [6])
        #expect(try store.scan(range, descending: false).collect().map(\.key) == [[3], [4], [5]])
        #expect(try store.scan(range, descending: true).collect().map(\.key) == [[5], [4], [3]])
    }

    /// Put replaces, delete removes one key, delete(range:) removes a range and counts it.
    package static func byteKeyWritesReplaceAndDelete(_ file: any DataFile) throws {
        let store = try file.byteKeyStore("index")
        try file.write { txn in for byte in UInt8(0)..<10 { try store.put([byte], [0], in: txn) } }
        let (deleted, missing, removed) = try file.write { txn in
            try store.put([4], [44], in: txn)
            return (try store.delete([5], in: txn), try store.delete([50], in: txn), try store.delete(range: ByteKeyRange(lower: [7]), in: txn))
        }
        #expect(deleted && !missing)
        #expect(removed == 3)
        #expect(try store.get([4]) == [44])
        #expect(try store.scanAll().collect().map(\.key) == [[0], [1], [2], [3], [4], [6]])
    }

    /// A transaction reads its own writes however many there are: thousands of puts,
    /// overwrites and deletes of keys that share prefixes (a fixed pseudo-random sequence),
    /// checked against a model inside the transaction, by point reads and a scan, and after
    /// the commit.
    package static func transactionReadsManyOwnWrites(_ file: any DataFile) throws {
        let store = try file.byteKeyStore("many")
        var model: [[UInt8]: [UInt8]] = [:]
        try file.write { txn in for number in 0..<200 { try store.put([0x10, UInt8(number)], [1], in: txn); model[[0x10, UInt8(number)]] = [1] } }
        var state: UInt64 = 0x5EED_0002
        func next(_ bound: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(bound))
        }
        try file.write { txn in
            for step in 0..<6_000 {
                let length = 1 + next(12)
                let key = [UInt8(0x10)] + (0..<length).map { _ in UInt8(next(3)) }
                switch next(5) {
                case 0:
                    _ = try store.delete(key, in: txn)
                    model[key] = nil
                case 1:
                    #expect(try store.get(key) == model[key], "step \(step)")
                default:
                    let value = [UInt8(truncatingIfNeeded: step), UInt8(truncatingIfNeeded: step >> 8)]
                    try store.put(key, value, in: txn)
                    model[key] = value
                }
            }
            for key in model.keys.prefix(300) { #expect(try store.get(key) == model[key]) }
            let scanned = try store.scanAll().collect()
            #expect(scanned.map(\.key) == model.keys.sorted { $0.lexicographicallyPrecedes($1) })
        }
        let committed = try store.scanAll().collect()
        #expect(committed.count == model.count)
        for entry in committed { #expect(model[entry.key] == entry.value) }
    }

    /// Putting many entries at once stores what one put per entry would: in order (a later
    /// entry with the same key wins), empty values kept as empty, any count of entries.
    package static func byteKeyPutsInBulkAsOneByOne(_ file: any DataFile) throws {
        let store = try file.byteKeyStore("index")
        try file.write { txn in try store.put([0xFF], [1], in: txn) }
        var entries: [(key: [UInt8], value: [UInt8])] = (0..<75).map { number in
            ([UInt8(number / 10), UInt8(number % 10)], Array(repeating: UInt8(number), count: number % 5))
        }
        entries.insert(([0xFF], [2]), at: 10)
        entries.append(([0, 5], [9, 9]))   // again, later: replaces the earlier value
        try file.write { txn in
            try store.put(entries, in: txn)
            try store.put([], in: txn)
        }
        var expected: [[UInt8]: [UInt8]] = [:]
        for (key, value) in entries { expected[key] = value }
        let stored = try store.scanAll().collect()
        #expect(stored.map(\.key) == expected.keys.sorted { $0.lexicographicallyPrecedes($1) })
        for entry in stored { #expect(entry.value == expected[entry.key]) }
        #expect(try store.get([0, 5]) == [9, 9])
        #expect(try store.get([0xFF]) == [2])
    }

    /// Byte-key stores are listed, kept apart from key stores, and can be deleted.
    package static func byteKeyStoresAreListedAndDeleted(_ file: any DataFile) throws {
        let first = try file.byteKeyStore("one")
        _ = try file.byteKeyStore("two")
        _ = try file.keyStore("default")
        try file.write { txn in try first.put([1], [1], in: txn) }
        #expect(try file.byteKeyStoreNames() == ["one", "two"])
        #expect(try !file.keyStoreNames().contains("one"))
        try file.deleteByteKeyStore("one")
        #expect(try file.byteKeyStoreNames() == ["two"])
        #expect(try file.byteKeyStore("one").count() == 0)
    }

    // MARK: Key stores

    /// Key stores are listed by name, independent, and deleted with their records.
    package static func keyStoresAreIndependentAndDeletable(_ file: any DataFile) throws {
        let a = try file.keyStore("alpha")
        let b = try file.keyStore("beta")
        try insert(["x"], into: a, of: file)
        #expect(try b.get("x") == nil)
        #expect(try file.keyStoreNames().contains("alpha"))
        try file.deleteKeyStore("alpha")
        #expect(try !file.keyStoreNames().contains("alpha"))
        let again = try file.keyStore("alpha")
        #expect(try again.get("x") == nil)
        #expect(try again.lastSequence() == 0)
    }

    /// A bad store name is refused with a clear error.
    package static func invalidStoreNameIsRefused(_ file: any DataFile) throws {
        #expect(throws: StorageError(.invalidParameter, "")) { try file.keyStore("") }
        #expect(throws: StorageError(.invalidParameter, "")) { try file.keyStore("a\"b; DROP") }
    }

    /// A thousand key stores can be created, written and listed.
    package static func thousandKeyStoresWork(_ file: any DataFile) throws {
        let names = (0..<1000).map { String(format: "store%04d", $0) }
        try file.write { txn in
            for name in names { try file.keyStore(name).set(Record(key: "k", body: Array(name.utf8)), ifSequence: 0, in: txn) }
        }
        let listed = try file.keyStoreNames().filter { $0.hasPrefix("store") }
        #expect(listed == names)
        #expect(try file.keyStore("store0777").get("k")?.body == Array("store0777".utf8))
    }

    // MARK: Expiration

    /// Expiration is set, read, cleared, and the earliest one reported.
    package static func expirationIsSetReadAndCleared(_ file: any DataFile) throws {
        let store = try file.keyStore("default")
        try insert(["a", "b", "c"], into: store, of: file)
        #expect(try store.nextExpiration() == nil)
        let (setA, setGhost) = try file.write { txn in
            (try store.setExpiration("a", to: 5_000, in: txn), try store.setExpiration("ghost", to: 1, in: txn))
        }
        #expect(setA && !setGhost)
        try file.write { txn in
            try store.setExpiration("b", to: 2_000, in: txn)
            try store.setExpiration("c", to: 9_000, in: txn)
            try store.setExpiration("c", to: nil, in: txn)
        }
        #expect(try store.expiration(of: "a") == 5_000)
        #expect(try store.expiration(of: "c") == nil)
        #expect(try store.get("a")?.expiration == 5_000)
        #expect(try store.nextExpiration() == 2_000)
        #expect(try store.expiredKeys(at: 4_999) == ["b"])
        #expect(try store.expiredKeys(at: 5_000) == ["b", "a"])
    }

    /// Updating a record keeps its expiration; purging it removes it from the expiration order.
    package static func expirationSurvivesUpdateAndGoesWithPurge(_ file: any DataFile) throws {
        let store = try file.keyStore("default")
        try insert(["a", "b"], into: store, of: file)
        try file.write { txn in
            try store.setExpiration("a", to: 100, in: txn)
            try store.setExpiration("b", to: 200, in: txn)
        }
        try file.write { txn in _ = try store.set(Record(key: "a", body: [2]), ifSequence: 1, in: txn) }
        #expect(try store.expiration(of: "a") == 100)
        try file.write { txn in _ = try store.purge("a", in: txn) }
        #expect(try store.nextExpiration() == 200)
        #expect(try store.expiredKeys(at: 1_000) == ["b"])
    }

    /// An expiration set in an aborted transaction is gone.
    package static func abortedExpirationIsGone(_ file: any DataFile) throws {
        struct Boom: Error {}
        let store = try file.keyStore("default")
        try insert(["a"], into: store, of: file)
        #expect(throws: Boom.self) { try file.write { txn in try store.setExpiration("a", to: 10, in: txn); throw Boom() } }
        #expect(try store.expiration(of: "a") == nil)
        #expect(try store.nextExpiration() == nil)
    }

    /// Reads inside write transactions see the expiration column appear and, after an aborted
    /// transaction added it, disappear (an engine may remember what a transaction's reads saw).
    package static func expirationColumnSeenByLaterTransactions(_ file: any DataFile) throws {
        struct Boom: Error {}
        let store = try file.keyStore("default")
        try insert(["a", "b"], into: store, of: file)
        // Reads on the writer before any expiration exists.
        let before = try file.write { (txn: borrowing WriteTransaction) throws -> (String?, Int64?) in
            (try store.get("a")?.key, try store.expiration(of: "a"))
        }
        #expect(before.0 == "a" && before.1 == nil)
        var setInAborted: Int64?
        #expect(throws: Boom.self) {
            try file.write { (txn: borrowing WriteTransaction) throws -> Void in
                try store.setExpiration("a", to: 10, in: txn)
                setInAborted = try store.expiration(of: "a")
                throw Boom()
            }
        }
        #expect(setInAborted == 10)
        let afterAbort = try file.write { (txn: borrowing WriteTransaction) throws -> (String?, Int64?, Int64?) in
            let read = (try store.get("b")?.key, try store.expiration(of: "a"))
            try store.setExpiration("b", to: 20, in: txn)
            return (read.0, read.1, try store.expiration(of: "b"))
        }
        #expect(afterAbort.0 == "b" && afterAbort.1 == nil && afterAbort.2 == 20)
        let later = try file.write { (txn: borrowing WriteTransaction) throws -> (String?, Int64?) in
            (try store.get("b")?.key, try store.expiration(of: "b"))
        }
        #expect(later.0 == "b" && later.1 == 20)
        #expect(try store.expiration(of: "b") == 20)
        #expect(try store.nextExpiration() == 20)
    }

    // MARK: Size

    /// A 10 MB body is stored and read back intact.
    package static func tenMegabyteBodyRoundTrips(_ file: any DataFile) throws {
        let store = try file.keyStore("default")
        var generator = SplitMix64(seed: 10)
        let body = (0..<10_000_000).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
        try file.write { txn in try store.set(Record(key: "big", body: body), ifSequence: 0, in: txn) }
        let record = try #require(try store.get("big"))
        #expect(record.body.count == body.count)
        #expect(record.body == body)
        #expect(try store.get("big", content: .metaOnly)?.bodySize == body.count)
    }
}

