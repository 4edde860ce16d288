/// Writes values into Fleece bytes exactly as the encoder of Couchbase Lite 2.8 does, so the same
/// calls give the same bytes (revision IDs are digests of these bytes).
///
/// Values are written in document order; collections are opened and closed around their items,
/// and in a dictionary every value follows its key. Misuse (a value where a key is needed, an
/// unclosed collection, NaN) is recorded and reported by ``finish()``.
///
/// ```swift
/// let encoder = FleeceEncoder(sharedKeys: keys)
/// encoder.beginDictionary()
/// encoder.writeKey("type"); encoder.writeString("person")
/// encoder.writeKey("age");  encoder.writeInt(30)
/// encoder.endDictionary()
/// let bytes = try encoder.finish()
/// ```
package final class FleeceEncoder {
    /// One pending item of an open collection: an inline value (up to 4 bytes, packed
    /// big-endian so the first byte is the top one) or a pointer to an absolute output offset.
    struct Slot {
        var raw: UInt32
        var isPointer: Bool
    }

    /// A dictionary key as the sort needs it: an integer (shared) key, or UTF-8 bytes found
    /// in the output (`start`, `count`), or a 0/1-byte string held inline.
    enum SortKey {
        case shared(Int)
        case written(start: Int, count: Int)
        case inline(count: Int, byte: UInt8)
    }

    /// An open collection (the root is a one-item pseudo-collection). Its pending items are
    /// the encoder's `slots` from `slotStart` on, its keys `keys` from `keyStart` on: one stack
    /// for all levels, so opening a collection allocates nothing.
    struct Level {
        var tag: UInt8 = 0
        var slotStart = 0
        var keyStart = 0
        var wide = false
        /// In a dictionary: the next item must be a key.
        var expectsKey = false
    }

    /// The shared-key table keys are mapped through, if any.
    package let sharedKeys: SharedKeys?
    /// Whether repeated short strings become pointers to their first copy (on, as in LiteCore).
    /// Read for every string: unchecked like the buffers below (Fleece-9).
    @exclusivity(unchecked) package var uniqueStrings = true

    // The encoder is used by one thread at a time and never hands out references to these, so
    // the runtime's exclusivity checks (a thread-local lookup on every access) only cost time:
    // they were about a tenth of encoding.
    @exclusivity(unchecked) var out: EncoderBuffer<UInt8>
    @exclusivity(unchecked) var levels = EncoderBuffer<Level>(capacity: 8)
    @exclusivity(unchecked) var slots = EncoderBuffer<Slot>(capacity: 64)
    @exclusivity(unchecked) var keys = EncoderBuffer<SortKey>(capacity: 32)
    @exclusivity(unchecked) var strings = SmallKeyTable()
    @exclusivity(unchecked) var firstError: FleeceError?
    @exclusivity(unchecked) var addingKey = false
    /// Scratch for sorting a dictionary's entries, kept for the next one.
    @exclusivity(unchecked) var sortOrder: [Int] = []
    @exclusivity(unchecked) var sortedSlots = EncoderBuffer<Slot>(capacity: 32)

    /// The number of open levels, the root included.
    var depth: Int { levels.count }

    // Format constants (Fleece Internal.hh): narrow pointers reach at most 0x7FFE bytes back;
    // strings of 2...15 bytes are de-duplicated; counts from 0x7FF on spill into a varint.
    static let maxNarrowOffset = 0x7FFE
    static let maxSharedStringSize = 15
    static let longCount = 0x7FF

    /// Makes an encoder; with `sharedKeys`, eligible dictionary keys are written as integers
    /// (and new eligible keys are added to the table).
    package init(sharedKeys: SharedKeys? = nil, reservingCapacity capacity: Int = 256) {
        self.sharedKeys = sharedKeys
        out = EncoderBuffer(capacity: capacity)
        levels.append(Level())
    }

    /// Whether a write so far was invalid; ``finish()`` will throw it.
    package var error: FleeceError? { firstError }

    func fail(_ message: String) {
        if firstError == nil { firstError = FleeceError(.encodeError, message) }
    }

    /// Discards everything written, ready to encode a new value.
    package func reset() {
        out.removeAll()
        slots.removeAll()
        keys.removeAll()
        levels.truncate(to: 1)
        levels[0] = Level()
        addingKey = false
        strings.removeAll()
        firstError = nil
    }

    // MARK: Items

    @inline(__always)
    func addSlot(_ slot: Slot) {
        if addingKey {
            addingKey = false
        } else if levels.last.tag == 7 {
            guard !levels.last.expectsKey else { fail("a dictionary value was written without a key"); return }
            levels.last.expectsKey = true
        }
        slots.append(slot)
    }

    @inline(__always)
    func addInline(_ b0: UInt8, _ b1: UInt8) {
        addSlot(Slot(raw: UInt32(b0) << 24 | UInt32(b1) << 16, isPointer: false))
    }

    @inline(__always)
    func addPointer(to position: Int) {
        addSlot(Slot(raw: UInt32(truncatingIfNeeded: position), isPointer: true))
    }

    /// Adds a value of `bytes`: inline when it is at most 4 bytes and `canInline` (3–4 bytes
    /// make the collection wide), else written out now with a pointer slot.
    @inline(__always)
    func writeRaw(_ bytes: UnsafeRawBufferPointer, canInline: Bool) {
        if canInline && bytes.count <= 4 {
            var raw: UInt32 = 0
            for index in 0..<bytes.count { raw |= UInt32(bytes[index]) << (24 - 8 * UInt32(index)) }
            addSlot(Slot(raw: raw, isPointer: false))
            if bytes.count > 2 { levels.last.wide = true }
        } else {
            addPointer(to: out.count)
            out.append(contentsOf: bytes)
        }
        if out.count & 1 != 0 { out.append(0) }
    }

    // MARK: Scalars

    /// Writes `null`.
    package func writeNull() { addInline(0x30, 0) }
    /// Writes the internal `undefined` value (a deleted key in a delta; prints as `undefined`).
    package func writeUndefined() { addInline(0x3C, 0) }
    /// Writes `true` or `false`.
    package func writeBool(_ value: Bool) { addInline(value ? 0x38 : 0x34, 0) }

    /// Writes a signed integer (a 2-byte short int from −2048 to 2047, else the fewest bytes).
    package func writeInt(_ value: Int64) { writeInt(value, asCopy: false) }

    /// Writes an unsigned integer (a short int below 2048, else flagged unsigned).
    package func writeUInt(_ value: UInt64) { writeUInt(value, asCopy: false) }

    /// Writes a signed integer; with `asCopy`, a long int of 3–4 bytes sits inline, as when ``writeValue(_:)`` copies
    /// an encoded one.
    package func writeInt(_ value: Int64, asCopy: Bool) {
        if value >= -2048 && value < 2048 {
            addInline(UInt8(truncatingIfNeeded: value >> 8) & 0x0F, UInt8(truncatingIfNeeded: value))
        } else {
            writeLongInt(UInt64(bitPattern: value), isUnsigned: false, canInline: asCopy)
        }
    }

    /// Writes an unsigned integer; `asCopy` as for ``writeInt(_:asCopy:)``.
    package func writeUInt(_ value: UInt64, asCopy: Bool) {
        if value < 2048 {
            addInline(UInt8(truncatingIfNeeded: value >> 8), UInt8(truncatingIfNeeded: value))
        } else {
            writeLongInt(value, isUnsigned: true, canInline: asCopy)
        }
    }

    func writeLongInt(_ value: UInt64, isUnsigned: Bool, canInline: Bool = false) {
        var count = 8
        while count > 1 {
            let top = UInt8(truncatingIfNeeded: value >> (8 * UInt64(count - 1)))
            let next = UInt8(truncatingIfNeeded: value >> (8 * UInt64(count - 2)))
            if isUnsigned {
                guard top == 0 else { break }
            } else {
                // Drop a sign-extension byte only if the byte below it carries the same sign.
                guard (top == 0 && next & 0x80 == 0) || (top == 0xFF && next & 0x80 != 0) else { break }
            }
            count -= 1
        }
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 10) { buffer in
            buffer[0] = 0x10 | UInt8(count - 1) | (isUnsigned ? 0x08 : 0)
            for index in 0..<count { buffer[index + 1] = UInt8(truncatingIfNeeded: value >> (8 * UInt64(index))) }
            var size = count + 1
            if size & 1 != 0 { buffer[size] = 0; size += 1 }
            // Couchbase Lite 2.8's encoder writes a new long int out of line (behind a
            // pointer) whatever its size; only a copied value (`writeValue`) may sit inline.
            writeRaw(UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(buffer)[0..<size]), canInline: canInline)
        }
    }

    /// Writes a double: as a 32-bit float when that is exact (Couchbase Lite 2.8 tags it 0x20),
    /// else as 64 bits. Integral values stay floats. NaN is an error.
    package func writeDouble(_ value: Double) {
        guard !value.isNaN else { firstError = firstError ?? FleeceError(.unsupportedValue, "NaN cannot be encoded in Fleece"); return }
        if value.magnitude <= Double(Float.greatestFiniteMagnitude), Double(Float(value)) == value {
            writeFloatBits(Float(value))
            return
        }
        writeFloatingPoint(tag: 0x28, bits: value.bitPattern, byteCount: 8)
    }

    /// Writes a 32-bit float. NaN is an error.
    package func writeFloat(_ value: Float) {
        guard !value.isNaN else { firstError = firstError ?? FleeceError(.unsupportedValue, "NaN cannot be encoded in Fleece"); return }
        writeFloatBits(value)
    }

    func writeFloatBits(_ value: Float) {
        writeFloatingPoint(tag: 0x20, bits: UInt64(value.bitPattern), byteCount: 4)
    }

    /// A float value: the tag byte, a zero byte, then the low `byteCount` bytes of `bits`,
    /// little-endian.
    @inline(__always)
    private func writeFloatingPoint(tag: UInt8, bits: UInt64, byteCount: Int) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: byteCount + 2) { buffer in
            buffer[0] = tag
            buffer[1] = 0
            for index in 0..<byteCount { buffer[index + 2] = UInt8(truncatingIfNeeded: bits >> (8 * UInt64(index))) }
            writeRaw(UnsafeRawBufferPointer(buffer), canInline: false)
        }
    }

    // MARK: Strings and data

    /// Writes a string.
    package func writeString(_ value: String) {
        var value = value
        value.withUTF8 { _ = writeStringBytes(UnsafeRawBufferPointer($0)) }
    }

    /// Writes raw bytes as a string value, whatever they hold: LiteCore hashes a 16-byte UUID
    /// written this way into replication checkpoint IDs.
    package func writeString(rawBytes value: [UInt8]) {
        value.withUnsafeBytes { _ = writeBytes(tag: 0x40, $0) }
    }

    /// Writes binary data (printed as base64 in JSON).
    package func writeData(_ value: [UInt8]) {
        value.withUnsafeBytes { _ = writeBytes(tag: 0x50, $0) }
    }

    /// Writes a string given as UTF-8 bytes; returns where its bytes sit in the output (for
    /// key sorting), or nil when it went inline.
    @discardableResult
    func writeStringBytes(_ bytes: UnsafeRawBufferPointer) -> Int? {
        let count = bytes.count
        guard uniqueStrings, count >= 2, count <= Self.maxSharedStringSize, let key = SmallKey(bytes) else {
            return writeBytes(tag: 0x40, bytes)
        }
        let headerSize = count >= 15 ? 2 : 1
        if let offset = strings[key] {
            if levels.last.wide || out.count - offset <= Self.maxNarrowOffset - 32 {
                addPointer(to: offset)
                return offset + headerSize
            }
        }
        let offset = out.count
        let start = writeBytes(tag: 0x40, bytes)
        strings[key] = offset
        return start
    }

    @discardableResult
    func writeBytes(tag: UInt8, _ bytes: UnsafeRawBufferPointer) -> Int? {
        let count = bytes.count
        if count < 2 {
            addInline(tag | UInt8(count), count == 1 ? bytes[0] : 0)
            return nil
        }
        addPointer(to: out.count)
        out.append(tag | UInt8(min(count, 15)))
        if count >= 15 { appendVarint(UInt64(count)) }
        let start = out.count
        out.append(contentsOf: bytes)
        if out.count & 1 != 0 { out.append(0) }
        return start
    }

    func appendVarint(_ value: UInt64) {
        var value = value
        while value >= 0x80 {
            out.append(UInt8(truncatingIfNeeded: value) | 0x80)
            value >>= 7
        }
        out.append(UInt8(value))
    }

    // MARK: Collections

    /// Opens an array; its items follow, then ``endArray()``.
    package func beginArray(reservingCapacity capacity: Int = 0) { push(tag: 6, capacity: capacity) }

    /// Opens a dictionary; write ``writeKey(_:)`` then a value for each entry, then ``endDictionary()``.
    package func beginDictionary(reservingCapacity capacity: Int = 0) {
        push(tag: 7, capacity: 2 * capacity)
        levels.last.expectsKey = true
    }

    func push(tag: UInt8, capacity: Int) {
        levels.append(Level(tag: tag, slotStart: slots.count, keyStart: keys.count))
        if capacity > 0 { slots.reserve(capacity) }
    }

    /// Writes a dictionary key (as a shared-key integer when the table has or takes it).
    package func writeKey(_ key: String) {
        var key = key
        key.withUTF8 { writeKeyBytes(UnsafeRawBufferPointer($0)) }
    }

    /// Writes a dictionary key given as UTF-8 bytes.
    package func writeKeyBytes(_ bytes: UnsafeRawBufferPointer) {
        if let sharedKeys, let index = sharedKeys.indexAddingIfEligible(forBytes: bytes) {
            writeKey(sharedIndex: index)
            return
        }
        guard beginKey() else { return }
        let start = writeStringBytes(bytes)
        if let start {
            keys.append(.written(start: start, count: bytes.count))
        } else {
            keys.append(.inline(count: bytes.count, byte: bytes.count == 1 ? bytes[0] : 0))
        }
        levels.last.expectsKey = false
    }

    /// Writes an integer (shared) key; only valid with a shared-key table.
    package func writeKey(sharedIndex index: Int) {
        guard sharedKeys != nil else { fail("an integer key was written without a shared-key table"); return }
        guard beginKey() else { return }
        addSlot(Slot(raw: UInt32(UInt8(truncatingIfNeeded: index >> 8) & 0x0F) << 24 | UInt32(UInt8(truncatingIfNeeded: index)) << 16,
                     isPointer: false))
        keys.append(.shared(index))
        levels.last.expectsKey = false
    }

    /// Checks a key may be written now and marks the next slot as that key's.
    func beginKey() -> Bool {
        guard levels.last.tag == 7 else { fail("a key was written outside a dictionary"); return false }
        guard levels.last.expectsKey else { fail("a key was written where a dictionary value was expected"); return false }
        addingKey = true
        return true
    }

    /// Closes the innermost collection, whichever kind it is (for a ``JSONTape`` replay, whose
    /// end events do not say).
    func endInnermostCollection() {
        if levels.last.tag == 7 { endDictionary() } else { endArray() }
    }

    /// Closes the innermost array.
    package func endArray() { endCollection(tag: 6) }

    /// Closes the innermost dictionary, sorting its entries by key.
    package func endDictionary() {
        if depth > 1 && levels.last.tag == 7 && !levels.last.expectsKey {
            fail("a dictionary was closed after a key with no value")
            return
        }
        endCollection(tag: 7)
    }
}
