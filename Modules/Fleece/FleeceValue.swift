/// A read-only view of one value inside a ``FleeceDocument``: no copy, no allocation; it keeps
/// its document alive.
///
/// Typed accessors convert like Fleece does: `int64` of a float truncates, `bool` of a number
/// is "not zero", `string` is nil unless the value is a string.
package struct FleeceValue: Sendable {
    /// The document the value lives in.
    package let document: FleeceDocument
    let offset: Int

    init(document: FleeceDocument, offset: Int) {
        self.document = document
        self.offset = offset
    }

    @inline(__always) var reader: FleeceReader { document.reader }
    @inline(__always) var tagByte: UInt8 { document.base.load(fromByteOffset: offset, as: UInt8.self) }
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
    /// Whether the value is a floating-point number.
    package var isFloatingPoint: Bool { tag == 2 }
    /// Whether the value is a 64-bit double (false for a 32-bit float).
    package var isDouble: Bool { tag == 2 && tagByte & 0x08 != 0 }
    /// Whether the value is `null`.
    package var isNull: Bool { tagByte == 0x30 }
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
                return Double(bitPattern: UInt64(littleEndian: document.base.loadUnaligned(fromByteOffset: offset + 2, as: UInt64.self)))
            }
            return Double(Float(bitPattern: UInt32(littleEndian: document.base.loadUnaligned(fromByteOffset: offset + 2, as: UInt32.self))))
        case 1: return isUnsigned ? Double(longIntBits) : Double(int64)
        case 0, 3: return Double(int64)
        default: return 0
        }
    }

    /// The value as a 32-bit float when it is stored as one (nil otherwise).
    package var float: Float? {
        guard tag == 2, tagByte & 0x08 == 0 else { return nil }
        return Float(bitPattern: UInt32(littleEndian: document.base.loadUnaligned(fromByteOffset: offset + 2, as: UInt32.self)))
    }

    /// The string, or nil when the value is not a string.
    package var string: String? {
        guard tag == 4 else { return nil }
        return withPayload { String(decoding: $0, as: UTF8.self) }
    }

    /// The bytes of a data or string value (nil for other types).
    package var data: [UInt8]? {
        guard tag == 4 || tag == 5 else { return nil }
        return withPayload { Array($0) }
    }

    /// Calls `body` with the bytes of a string or data value, without copying them (an empty
    /// buffer for other types).
    package func withPayload<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        guard tag == 4 || tag == 5 else { return try body(UnsafeRawBufferPointer(start: nil, count: 0)) }
        let (start, count) = reader.stringBytes(offset)
        return try body(UnsafeRawBufferPointer(start: document.base + start, count: count))
    }

    /// The array, or nil when the value is not an array.
    package var array: FleeceArray? { tag == 6 ? FleeceArray(self) : nil }

    /// The dictionary, or nil when the value is not a dictionary.
    package var dictionary: FleeceDict? { tag == 7 ? FleeceDict(self) : nil }
}
