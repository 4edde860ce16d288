/// A value read straight from bytes the caller lends: a position in a buffer, with no document
/// object behind it and so no reference counting per value, for code that tests many records
/// once each (a query scan's filter).
///
/// Reads are unchecked, as ``FleeceValue``'s are after validation: the bytes must be trusted
/// Fleece (written by this database) and stay alive and unchanged while the value is used.
/// Accessors convert exactly as ``FleeceValue``'s do (those call these).
///
/// ```swift
/// let root = try FleeceLentValue(rootOf: lentBody)
/// let isHotel = root.value(for: collectionKey)?.withPayload { $0.elementsEqual("hotels".utf8) } ?? false
/// ```
package struct FleeceLentValue {
    let reader: FleeceReader
    let offset: Int

    init(reader: FleeceReader, offset: Int) {
        self.reader = reader
        self.offset = offset
    }

    /// The root value of the Fleece data in `buffer`.
    ///
    /// - Throws: ``FleeceError`` (`.invalidData`) when the data has no root pointer in range.
    package init(rootOf buffer: UnsafeRawBufferPointer) throws {
        guard let start = buffer.baseAddress, buffer.count >= 2 else {
            throw FleeceError(.invalidData, "a Fleece value needs at least 2 bytes")
        }
        reader = FleeceReader(base: start, count: buffer.count)
        offset = try reader.findRoot().offset
    }

    @inline(__always) var tagByte: UInt8 { reader.byte(offset) }
    @inline(__always) var tag: UInt8 { tagByte >> 4 }

    /// The value's type.
    package var type: FleeceType {
        switch tag {
        case 0, 1, 2: return .number
        case 3:
            switch tagByte & 0x0F {
            case 0x04, 0x08: return .boolean
            case 0x0C: return .undefined
            default: return .null
            }
        case 4: return .string
        case 5: return .data
        case 6: return .array
        default: return .dictionary
        }
    }

    /// Whether the value is an integer (not a float).
    package var isInteger: Bool { tag <= 1 }
    /// Whether the value is an integer stored as unsigned (values of 2⁶³ and more).
    package var isUnsigned: Bool { tag == 1 && tagByte & 0x08 != 0 }
    /// Whether the value is `undefined`.
    package var isUndefined: Bool { tagByte == 0x3C }

    /// A boolean: `true` for true and non-zero numbers and any string/data/collection.
    package var bool: Bool {
        switch tag {
        case 3: return tagByte & 0x0F == 0x08
        case 0, 1: return int64 != 0
        case 2: return double != 0
        default: return true
        }
    }

    /// A signed integer (0 for non-numbers; floats truncate; large unsigned values wrap).
    package var int64: Int64 {
        switch tag {
        case 0:
            let raw = Int16(bitPattern: UInt16(tagByte & 0x0F) << 12 | UInt16(reader.byte(offset + 1)) << 4)
            return Int64(raw >> 4)
        case 1: return Int64(bitPattern: longIntBits)
        case 2:
            let value = double
            guard value.isFinite, value > -9.3e18, value < 9.3e18 else { return value < 0 ? .min : (value > 0 ? .max : 0) }
            return Int64(value)
        case 3: return tagByte & 0x0F == 0x08 ? 1 : 0
        default: return 0
        }
    }

    /// An unsigned integer (0 for non-numbers; negative values wrap, as in Fleece).
    package var uint64: UInt64 {
        switch tag {
        case 1: return longIntBits
        case 2:
            let value = double
            guard value.isFinite, value >= 0 else { return 0 }
            guard value < 1.8e19 else { return .max }
            return UInt64(value)
        default: return UInt64(bitPattern: int64)
        }
    }

    var longIntBits: UInt64 {
        let count = Int(tagByte & 0x07) + 1
        var bits: UInt64 = 0
        for index in 0..<count { bits |= UInt64(reader.byte(offset + 1 + index)) << (8 * UInt64(index)) }
        if tagByte & 0x08 == 0 && count < 8 && reader.byte(offset + count) & 0x80 != 0 {
            bits |= ~0 << (8 * UInt64(count))
        }
        return bits
    }

    /// A double (integers converted; 0 for non-numbers).
    package var double: Double {
        switch tag {
        case 2:
            if tagByte & 0x08 != 0 {
                return Double(bitPattern: UInt64(littleEndian: reader.base.loadUnaligned(fromByteOffset: offset + 2, as: UInt64.self)))
            }
            return Double(Float(bitPattern: UInt32(littleEndian: reader.base.loadUnaligned(fromByteOffset: offset + 2, as: UInt32.self))))
        case 1: return isUnsigned ? Double(longIntBits) : Double(int64)
        case 0, 3: return Double(int64)
        default: return 0
        }
    }

    /// Calls `body` with the bytes of a string or data value, in place (an empty buffer for
    /// other types).
    package func withPayload<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        guard tag == 4 || tag == 5 else { return try body(UnsafeRawBufferPointer(start: nil, count: 0)) }
        let (start, count) = reader.stringBytes(offset)
        return try body(UnsafeRawBufferPointer(start: reader.base + start, count: count))
    }

    /// The dictionary entry for a resolved key, or nil when this is not a dictionary or has no
    /// such key (the same answer as ``FleeceDict/value(for:)`` for bytes of the table the key
    /// was resolved in).
    package func value(for key: FleeceResolvedKey) -> FleeceLentValue? {
        key.bytes.withUnsafeBytes { value(sharedKey: key.shared, keyBytes: $0) }
    }

    /// The value under the key whose shared-key number is `sharedKey` (nil: not shared) and
    /// whose UTF-8 is `keyBytes`, or nil when this is not a dictionary or has no such key.
    package func value(sharedKey: Int?, keyBytes: UnsafeRawBufferPointer) -> FleeceLentValue? {
        guard tag == 7 else { return nil }
        let (count, wide, first) = reader.collection(offset)
        if let shared = sharedKey, let index = reader.dictionaryIndex(sharedKey: shared, count: count, first: first, wide: wide) {
            return FleeceLentValue(reader: reader, offset: reader.dictionaryValueOffset(index, first: first, wide: wide))
        }
        guard let index = reader.dictionaryIndex(keyBytes: keyBytes, count: count, first: first, wide: wide) else { return nil }
        return FleeceLentValue(reader: reader, offset: reader.dictionaryValueOffset(index, first: first, wide: wide))
    }

    /// The array item at `index` (negative counts from the end), or nil when this is not an
    /// array or the index is out of range.
    package func element(at index: Int) -> FleeceLentValue? {
        guard tag == 6 else { return nil }
        let (count, wide, first) = reader.collection(offset)
        let position = index < 0 ? count + index : index
        guard position >= 0, position < count else { return nil }
        return FleeceLentValue(reader: reader, offset: reader.resolve(first + position * (wide ? 4 : 2), wide: wide))
    }
}
