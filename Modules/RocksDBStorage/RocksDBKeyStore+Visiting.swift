import LiteStorage

extension RocksDBKeyStore {
    /// Every accepted record in key order (descending with `options.descending`), its key and
    /// body lent from the iterator's current entry: no copy per record, unlike `enumerate`.
    /// The query engine's scans and full-text index builds read documents this way.
    package func visitRecords(options: RecordEnumerationOptions, _ visitor: (RecordView) throws -> Bool) throws {
        let prefix = recordPrefix
        let iterator = try handle.iterator(view: try file.view(), lower: prefix,
                                           upper: ByteKeyRange.successor(ofPrefix: prefix))
        defer { iterator.close() }
        if options.descending { iterator.seekLast() } else { iterator.seekFirst() }
        while try iterator.isValid() {
            let value = iterator.value
            let header = try RocksDBRecordCodec.header(value, path: path)
            if options.accepts(header.flags) {
                let body = options.content == .all
                    ? UnsafeRawBufferPointer(rebasing: value[header.versionRange.upperBound...])
                    : UnsafeRawBufferPointer(start: nil, count: 0)
                let view = RecordView(key: UnsafeRawBufferPointer(rebasing: iterator.key.dropFirst(prefix.count)),
                                      body: body, flags: header.flags, sequence: header.sequence,
                                      expiration: header.expiration)
                if try !visitor(view) { return }
            }
            if options.descending { iterator.previous() } else { iterator.next() }
        }
    }
}
