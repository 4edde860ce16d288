extension KeyStore {
    /// Calls `visitor` with every record that `options` accepts, in no promised order (each
    /// engine's cheapest), without copying keys or bodies; stops early when it returns false.
    /// The query engine's full scans read documents this way.
    ///
    /// This default copies through `enumerate`; engines that can lend their buffers override it.
    package func visitRecords(options: RecordEnumerationOptions,
                              _ visitor: (RecordView) throws -> Bool) throws {
        let enumerator = try enumerate(options: options)
        defer { enumerator.close() }
        while let record = try enumerator.next() {
            let goOn = try Array(record.key.utf8).withUnsafeBytes { key in
                try record.body.withUnsafeBytes { body in
                    try visitor(RecordView(key: key, body: body, flags: record.flags, sequence: record.sequence,
                                           expiration: record.expiration))
                }
            }
            if !goOn { return }
        }
    }

    /// The default of ``KeyStore/visitRecords(options:accepting:_:)``.
    package func visitRecords(options: RecordEnumerationOptions, accepting accepts: (UnsafeRawBufferPointer) -> Bool,
                              _ visitor: (RecordView) throws -> Bool) throws {
        try visitRecordsTestingEachBody(options: options, accepting: accepts, visitor)
    }

    /// ``KeyStore/visitRecords(options:accepting:_:)`` by testing each body as it is lent (for
    /// engines, and cases, that cannot test inside their own scan).
    package func visitRecordsTestingEachBody(options: RecordEnumerationOptions, accepting accepts: (UnsafeRawBufferPointer) -> Bool,
                                             _ visitor: (RecordView) throws -> Bool) throws {
        try visitRecords(options: options) { view in
            guard accepts(view.body) else { return true }
            return try visitor(view)
        }
    }

    /// Lends the record with `key` (this default copies through `get`).
    @discardableResult
    package func visitRecord(_ key: String, _ visitor: (RecordView) throws -> Void) throws -> Bool {
        guard let record = try get(key) else { return false }
        try Array(record.key.utf8).withUnsafeBytes { keyBytes in
            try record.body.withUnsafeBytes { body in
                try visitor(RecordView(key: keyBytes, body: body, flags: record.flags, sequence: record.sequence,
                                       expiration: record.expiration))
            }
        }
        return true
    }

    /// Reads `index`'s entries in `range` and looks each value up as a key with
    /// ``visitRecord(_:_:)``: the default of ``visitRecords(keyedBy:in:descending:_:)``.
    package func visitRecords(keyedBy index: ByteKeyStore, in range: ByteKeyRange, descending: Bool,
                              _ visitor: (RecordView) throws -> Bool) throws {
        try visitRecordsOneByOne(keyedBy: index, in: range, descending: descending, visitor)
    }

    /// The index's order: the default of ``visitRecordsInAnyOrder(keyedBy:in:_:)``.
    package func visitRecordsInAnyOrder(keyedBy index: ByteKeyStore, in range: ByteKeyRange,
                                        _ visitor: (RecordView) throws -> Bool) throws {
        try visitRecords(keyedBy: index, in: range, descending: false, visitor)
    }

    /// The lookup-per-entry form of ``visitRecords(keyedBy:in:descending:_:)``, for engines that
    /// join natively only in some cases.
    package func visitRecordsOneByOne(keyedBy index: ByteKeyStore, in range: ByteKeyRange, descending: Bool,
                                      _ visitor: (RecordView) throws -> Bool) throws {
        let cursor = try index.scan(range, descending: descending)
        defer { cursor.close() }
        while let entry = try cursor.next() {
            var goOn = true
            try visitRecord(String(decoding: entry.value, as: UTF8.self)) { goOn = try visitor($0) }
            if !goOn { return }
        }
    }
}
