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

    /// The same position read without the document (one implementation of the accessors).
    @inline(__always) var lent: FleeceLentValue { FleeceLentValue(reader: reader, offset: offset) }

    /// The value's type.
    package var type: FleeceType { lent.type }

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
    package var bool: Bool { lent.bool }

    /// A signed integer (0 for non-numbers; floats truncate; large unsigned values wrap).
    package var int64: Int64 { lent.int64 }

    /// An unsigned integer (0 for non-numbers; negative values wrap, as in Fleece).
    package var uint64: UInt64 { lent.uint64 }

    var longIntBits: UInt64 { lent.longIntBits }

    /// A double (integers converted; 0 for non-numbers).
    package var double: Double { lent.double }

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
