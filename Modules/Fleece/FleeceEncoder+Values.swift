extension FleeceEncoder {
    /// Writes a copy of an existing (read) value, recursively; dictionary keys go through this
    /// encoder's shared keys (an integer key is kept as is when both use the same table).
    package func writeValue(_ value: FleeceValue) {
        let reader = value.reader
        switch value.tag {
        case 0, 1, 2, 3:
            let size: Int
            switch value.tag {
            case 1: size = 2 + Int(value.tagByte & 0x07)
            case 2: size = value.tagByte & 0x08 != 0 ? 10 : 6
            default: size = 2
            }
            // A long int of 3–4 bytes stays inline (widening the collection), as when written anew.
            let padded = size + (size & 1)
            withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 10) { buffer in
                for index in 0..<size { buffer[index] = reader.byte(value.offset + index) }
                if padded > size { buffer[size] = 0 }
                writeRaw(UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(buffer)[0..<padded]), canInline: true)
            }
        case 4:
            value.withPayload { _ = writeStringBytes($0) }
        case 5:
            value.withPayload { _ = writeBytes(tag: 0x50, $0) }
        case 6:
            let array = FleeceArray(value)
            beginArray(reservingCapacity: array.count)
            for item in array { writeValue(item) }
            endArray()
        default:
            let dict = FleeceDict(value)
            beginDictionary(reservingCapacity: dict.count)
            for index in 0..<dict.count {
                writeKey(dict.keyValue(index), from: value.document)
                writeValue(FleeceValue(document: value.document, offset: dict.valueOffset(index)))
            }
            endDictionary()
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
