import LiteStorage

extension RocksDBKeyStore {
    /// The records of `index`'s entries in `range`, in document-ID order: the IDs are read and
    /// sorted first, then one iterator walks the records forward, a few steps to the next ID
    /// and a seek past a longer gap. A lookup per entry searched the memtable's skip list from
    /// its top every time (about 2.5 µs each, four times the real core's indexed read); a step
    /// is one link. An ID that names no record is skipped; one named twice is visited twice.
    package func visitRecordsInAnyOrder(keyedBy index: ByteKeyStore, in range: ByteKeyRange,
                                        _ visitor: (RecordView) throws -> Bool) throws {
        let prefix = recordPrefix
        var keys: [[UInt8]] = []
        try index.visit(range, descending: false) { _, value in
            var key = prefix
            key.append(contentsOf: value)
            keys.append(key)
            return true
        }
        guard !keys.isEmpty else { return }
        keys.sort { a, b in a.withUnsafeBytes { RocksDBIterator.compare($0, b) } < 0 }
        let iterator = try handle.iterator(view: try file.view(), lower: prefix, upper: ByteKeyRange.successor(ofPrefix: prefix))
        defer { iterator.close() }
        iterator.seek(keys[0])
        for key in keys {
            var steps = 0
            while try iterator.isValid(), RocksDBIterator.compare(iterator.key, key) < 0 {
                if steps == Self.stepsBeforeSeeking {
                    iterator.seek(key)
                    break
                }
                iterator.next()
                steps += 1
            }
            guard try iterator.isValid() else { return }   // past the last record: no later ID has one
            guard RocksDBIterator.compare(iterator.key, key) == 0 else { continue }
            let value = iterator.value
            let header = try RocksDBRecordCodec.header(value, path: path)
            let view = RecordView(key: UnsafeRawBufferPointer(rebasing: iterator.key.dropFirst(prefix.count)),
                                  body: UnsafeRawBufferPointer(rebasing: value[header.versionRange.upperBound...]),
                                  flags: header.flags, sequence: header.sequence, expiration: header.expiration)
            if try !visitor(view) { return }
        }
    }

    /// How many records the walk steps over before it seeks instead (a seek costs about as
    /// much as a dozen steps in the memtable).
    private static let stepsBeforeSeeking = 8
}
