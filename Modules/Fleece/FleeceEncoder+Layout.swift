// Closing collections and the root: width choice, pointer fix-up and key sorting, following
// the layout rules of Fleece's encoder (formats.md §1.4–1.7).
extension FleeceEncoder {
    func endCollection(tag: UInt8) {
        guard depth > 1 else { fail("a collection was closed but none is open"); return }
        guard levels.last.tag == tag else {
            fail(tag == 6 ? "endArray() called while a dictionary is open" : "endDictionary() called while an array is open")
            return
        }
        let level = levels.last
        levels.truncate(to: levels.count - 1)
        if tag == 7 { sortDictionary(level) }

        let itemCount = slots.count - level.slotStart
        let count = tag == 7 ? itemCount / 2 : itemCount
        if count == 0 {
            slots.truncate(to: level.slotStart)
            keys.truncate(to: level.keyStart)
            addInline(tag << 4, 0)
            return
        }
        // The header: 2 bytes, then for 0x7FF items or more a varint of the rest (padded to even).
        var header: (UInt64, UInt64) = (0, 0)
        let headerSize = withUnsafeMutableBytes(of: &header) { buffer -> Int in
            buffer[0] = tag << 4 | UInt8(min(count, Self.longCount) >> 8)
            buffer[1] = UInt8(truncatingIfNeeded: min(count, Self.longCount))
            var size = 2
            if count >= Self.longCount {
                var extra = UInt64(count - Self.longCount)
                while extra >= 0x80 { buffer[size] = UInt8(truncatingIfNeeded: extra) | 0x80; size += 1; extra >>= 7 }
                buffer[size] = UInt8(extra)
                size += 1
                if size & 1 != 0 { buffer[size] = 0; size += 1 }
            }
            return size
        }
        let wide = level.wide || needsWidePointers(from: level.slotStart, origin: out.count + headerSize)
        let headerPosition = out.count
        withUnsafeMutableBytes(of: &header) { buffer in
            if wide { buffer[0] |= 0x08 }
            out.append(contentsOf: UnsafeRawBufferPointer(rebasing: buffer[0..<headerSize]))
        }
        emitSlots(from: level.slotStart, wide: wide)
        slots.truncate(to: level.slotStart)
        keys.truncate(to: level.keyStart)
        // The collection itself is an item of the enclosing level, pointing at its header.
        addPointer(to: headerPosition)
    }

    /// Whether a pointer among the slots from `first` on, laid out narrow from `origin`, would
    /// reach further back than a narrow pointer can.
    func needsWidePointers(from first: Int, origin: Int) -> Bool {
        var origin = origin
        for index in first..<slots.count {
            let slot = slots[index]
            if slot.isPointer && origin - Int(slot.raw) > Self.maxNarrowOffset { return true }
            origin += 2
        }
        return false
    }

    /// Writes the slots from `first` on, turning absolute pointer targets into backward offsets
    /// from each slot's final position.
    func emitSlots(from first: Int, wide: Bool) {
        let width = wide ? 4 : 2
        let start = out.appendZeros(width * (slots.count - first))
        let bytes = out.mutableBytes
        var origin = start
        for index in first..<slots.count {
            let slot = slots[index]
            if wide {
                var raw = slot.raw
                if slot.isPointer { raw = 0x8000_0000 | UInt32((origin - Int(slot.raw)) >> 1) }
                bytes.storeBytes(of: raw.bigEndian, toByteOffset: origin, as: UInt32.self)
            } else {
                var raw = UInt16(truncatingIfNeeded: slot.raw >> 16)
                if slot.isPointer { raw = 0x8000 | UInt16(truncatingIfNeeded: (origin - Int(slot.raw)) >> 1) }
                bytes.storeBytes(of: raw.bigEndian, toByteOffset: origin, as: UInt16.self)
            }
            origin += width
        }
    }

    /// Orders a dictionary's key/value pairs: integer keys first (ascending), then string keys
    /// by unsigned byte comparison, shorter first on a common prefix.
    func sortDictionary(_ level: Level) {
        let count = keys.count - level.keyStart
        guard count >= 2 else { return }
        let keyBase = keys.base + level.keyStart
        let bytes = out.bytes
        var isSorted = true
        for index in 1..<count where Self.compare(keyBase[index - 1], keyBase[index], bytes) >= 0 {
            isSorted = false
            break
        }
        if isSorted { return }
        // Sorted through scratch the encoder keeps, so a dictionary costs no allocation; the
        // keys themselves are not needed after the sort.
        sortOrder.removeAll(keepingCapacity: true)
        sortOrder.append(contentsOf: 0..<count)
        sortOrder.sort { Self.compare(keyBase[$0], keyBase[$1], bytes) < 0 }
        sortedSlots.removeAll()
        sortedSlots.reserve(2 * count)
        let slotBase = slots.base + level.slotStart
        for source in sortOrder {
            sortedSlots.append(slotBase[2 * source])
            sortedSlots.append(slotBase[2 * source + 1])
        }
        slotBase.update(from: sortedSlots.base, count: 2 * count)
    }

    static func compare(_ left: SortKey, _ right: SortKey, _ bytes: UnsafeRawBufferPointer) -> Int {
        switch (left, right) {
        case let (.shared(a), .shared(b)): return a < b ? -1 : (a == b ? 0 : 1)
        case (.shared, _): return -1
        case (_, .shared): return 1
        default:
            return withKeyBytes(left, bytes) { a in withKeyBytes(right, bytes) { b in compareBytes(a, b) } }
        }
    }

    static func withKeyBytes<R>(_ key: SortKey, _ bytes: UnsafeRawBufferPointer, _ body: (UnsafeRawBufferPointer) -> R) -> R {
        switch key {
        case let .written(start, count):
            return body(UnsafeRawBufferPointer(rebasing: bytes[start..<(start + count)]))
        case let .inline(count, byte):
            var byte = byte
            return withUnsafeBytes(of: &byte) { body(UnsafeRawBufferPointer(rebasing: $0[0..<count])) }
        case .shared:
            return body(UnsafeRawBufferPointer(start: nil, count: 0))
        }
    }

    // MARK: Finishing

    /// Ends the encoding and returns the bytes; the encoder is reset for reuse.
    ///
    /// - Throws: ``FleeceError`` when a write was invalid, a collection is still open, or not
    ///   exactly one top-level value was written.
    package func finish() throws -> [UInt8] {
        defer { reset() }
        if let firstError { throw firstError }
        guard depth == 1 else { throw FleeceError(.encodeError, "finish() called with \(depth - 1) unclosed array/dictionary") }
        guard slots.count == 1 else {
            throw FleeceError(.encodeError, slots.isEmpty ? "nothing was written before finish()"
                              : "only one top-level value may be written (got \(slots.count))")
        }
        let wide = levels[0].wide || needsWidePointers(from: 0, origin: out.count)
        emitSlots(from: 0, wide: wide)
        if wide {
            // The trailer must be a 2-byte value: a narrow pointer back to the 4-byte root.
            out.append(0x80)
            out.append(0x02)
        }
        return out.array()
    }
}

/// Unsigned byte comparison, shorter first on a common prefix (memcmp order).
@inline(__always)
func compareBytes(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Int {
    let common = min(a.count, b.count)
    if common > 0, let pa = a.baseAddress, let pb = b.baseAddress {
        let result = memcmpBytes(pa, pb, common)
        if result != 0 { return result }
    }
    return a.count < b.count ? -1 : (a.count == b.count ? 0 : 1)
}

@inline(__always)
func memcmpBytes(_ a: UnsafeRawPointer, _ b: UnsafeRawPointer, _ count: Int) -> Int {
    var index = 0
    while index < count {
        let x = a.load(fromByteOffset: index, as: UInt8.self)
        let y = b.load(fromByteOffset: index, as: UInt8.self)
        if x != y { return x < y ? -1 : 1 }
        index += 1
    }
    return 0
}
