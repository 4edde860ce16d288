extension FleeceEncoder {
    /// Writes a copy of an existing (read) value, recursively; dictionary keys go through this
    /// encoder's shared keys (an integer key is kept as is when both use the same table).
    package func writeValue(_ value: FleeceValue) {
        let document = value.document
        let sameKeys = sharedKeys != nil && sharedKeys === document.sharedKeys
        // Copied by offsets through the document's reader: a `FleeceValue` per item would retain
        // and release the document for every value of a deep copy.
        withExtendedLifetime(document) {
            copyValue(at: value.offset, reader: document.reader, sourceKeys: document.sharedKeys, sameKeys: sameKeys)
        }
    }

    /// Writes the value at `offset` of `reader`'s (valid) Fleece, and everything it contains.
    private func copyValue(at offset: Int, reader: FleeceReader, sourceKeys: SharedKeys?, sameKeys: Bool) {
        let tagByte = reader.byte(offset)
        switch tagByte >> 4 {
        case 0, 1, 2, 3:
            let size: Int
            switch tagByte >> 4 {
            case 1: size = 2 + Int(tagByte & 0x07)
            case 2: size = tagByte & 0x08 != 0 ? 10 : 6
            default: size = 2
            }
            // A long int of 3–4 bytes stays inline (widening the collection), as when written anew.
            let padded = size + (size & 1)
            withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 10) { buffer in
                for index in 0..<size { buffer[index] = reader.byte(offset + index) }
                if padded > size { buffer[size] = 0 }
                writeRaw(UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(buffer)[0..<padded]), canInline: true)
            }
        case 4:
            _ = writeStringBytes(Self.payload(at: offset, reader: reader))
        case 5:
            _ = writeBytes(tag: 0x50, Self.payload(at: offset, reader: reader))
        case 6:
            let (count, wide, first) = reader.collection(offset)
            let width = wide ? 4 : 2
            beginArray(reservingCapacity: count)
            for index in 0..<count {
                copyValue(at: reader.resolve(first + index * width, wide: wide), reader: reader,
                          sourceKeys: sourceKeys, sameKeys: sameKeys)
            }
            endArray()
        default:
            let (count, wide, first) = reader.collection(offset)
            beginDictionary(reservingCapacity: count)
            for index in 0..<count {
                writeKey(at: reader.dictionaryKeyOffset(index, first: first, wide: wide), reader: reader,
                         sourceKeys: sourceKeys, sameKeys: sameKeys)
                copyValue(at: reader.dictionaryValueOffset(index, first: first, wide: wide), reader: reader,
                          sourceKeys: sourceKeys, sameKeys: sameKeys)
            }
            endDictionary()
        }
    }

    /// The bytes of the string or data value at `offset`.
    @inline(__always)
    private static func payload(at offset: Int, reader: FleeceReader) -> UnsafeRawBufferPointer {
        let (start, count) = reader.stringBytes(offset)
        return UnsafeRawBufferPointer(start: reader.base + start, count: count)
    }

    /// Writes the dictionary key at `offset`: a string, or a shared-key number of `sourceKeys`
    /// (kept as a number when this encoder uses the same table, else written as its string).
    private func writeKey(at offset: Int, reader: FleeceReader, sourceKeys: SharedKeys?, sameKeys: Bool) {
        if reader.byte(offset) >> 4 == 4 {
            writeKeyBytes(Self.payload(at: offset, reader: reader))
            return
        }
        let index = Int(FleeceLentValue(reader: reader, offset: offset).int64)
        if sameKeys {
            writeKey(sharedIndex: index)
        } else if let string = sourceKeys?.string(for: index) {
            writeKey(string)
        } else {
            fail("dictionary has integer key \(index) that its shared-key table does not know")
        }
    }

    /// Writes a copy of a dictionary without the entry `omitted`, entries in the dictionary's
    /// stored order: what Couchbase Lite 2.8's `cblite cp` does to a JSON line after taking its
    /// document ID out (a mutable copy, the key removed, written back), so bodies and revision
    /// IDs match the real tool's.
    package func writeDictionary(_ value: FleeceValue, omitting omitted: String) {
        guard let dict = value.dictionary else {
            writeValue(value)
            return
        }
        beginDictionary(reservingCapacity: dict.count)
        for index in 0..<dict.count {
            let key = dict.keyValue(index)
            let name = key.tag == 4 ? key.string : value.document.sharedKeys?.string(for: Int(key.int64))
            if name == omitted { continue }
            writeKey(key, from: value.document)
            writeValue(FleeceValue(document: value.document, offset: dict.valueOffset(index)))
        }
        endDictionary()
    }

    /// Writes a dictionary key read from a stored dictionary (``FleeceDict/entryValues(at:)``):
    /// the bytes ``writeKey(_:)`` would write for its string, without decoding a shared key
    /// that this encoder's table shares with the key's document.
    package func writeKey(stored key: FleeceValue) {
        writeKey(key, from: key.document)
    }

    func writeKey(_ key: FleeceValue, from document: FleeceDocument) {
        if key.tag == 4 {
            key.withPayload { writeKeyBytes($0) }
        } else {
            let index = Int(key.int64)
            if let sharedKeys, sharedKeys === document.sharedKeys {
                writeKey(sharedIndex: index)
            } else if let string = document.sharedKeys?.string(for: index) {
                writeKey(string)
            } else {
                fail("dictionary has integer key \(index) that its shared-key table does not know")
            }
        }
    }
}
