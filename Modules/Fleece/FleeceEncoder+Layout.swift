// Closing collections and the root: width choice, pointer fix-up and key sorting, following
// the layout rules of Fleece's encoder (formats.md §1.4–1.7).
extension FleeceEncoder {
    func endCollection(tag: UInt8) {
        guard depth > 1 else { fail("a collection was closed but none is open"); return }
        guard levels[depth - 1].tag == tag else {
            fail(tag == 6 ? "endArray() called while a dictionary is open" : "endDictionary() called while an array is open")
            return
        }
        depth -= 1
        var level = levels[depth]
        levels[depth].slots = []
        levels[depth].keys = []
        if tag == 7 { sortDictionary(&level) }

        let itemCount = level.slots.count
        let count = tag == 7 ? itemCount / 2 : itemCount
        if count == 0 {
            addInline(tag << 4, 0)
            restore(level)
            return
        }
        var header: [UInt8] = [tag << 4 | UInt8(min(count, Self.longCount) >> 8), UInt8(truncatingIfNeeded: min(count, Self.longCount))]
        if count >= Self.longCount {
            var extra = UInt64(count - Self.longCount)
            while extra >= 0x80 { header.append(UInt8(truncatingIfNeeded: extra) | 0x80); extra >>= 7 }
            header.append(UInt8(extra))
            if header.count & 1 != 0 { header.append(0) }
        }
        checkPointerWidths(&level, origin: out.count + header.count)
        if level.wide { header[0] |= 0x08 }
        header.withUnsafeBytes { writeRaw($0, canInline: false) }
        emitSlots(level)
        restore(level)
    }

    /// Gives the level's arrays back to the stack so their capacity is reused.
    func restore(_ level: Level) {
        var level = level
        level.slots.removeAll(keepingCapacity: true)
        level.keys.removeAll(keepingCapacity: true)
        levels[depth].slots = level.slots
        levels[depth].keys = level.keys
    }

    func checkPointerWidths(_ level: inout Level, origin: Int) {
        guard !level.wide else { return }
        var origin = origin
        for slot in level.slots {
            if slot.isPointer && origin - Int(slot.raw) > Self.maxNarrowOffset {
                level.wide = true
                return
            }
            origin += 2
        }
    }

    /// Writes the slots, turning absolute pointer targets into backward offsets from each
    /// slot's final position.
    func emitSlots(_ level: Level) {
        var origin = out.count
        if level.wide {
            out.reserveCapacity(out.count + 4 * level.slots.count)
            for slot in level.slots {
                var raw = slot.raw
                if slot.isPointer { raw = 0x8000_0000 | UInt32((origin - Int(slot.raw)) >> 1) }
                out.append(UInt8(truncatingIfNeeded: raw >> 24))
                out.append(UInt8(truncatingIfNeeded: raw >> 16))
                out.append(UInt8(truncatingIfNeeded: raw >> 8))
                out.append(UInt8(truncatingIfNeeded: raw))
                origin += 4
            }
        } else {
            out.reserveCapacity(out.count + 2 * level.slots.count)
            for slot in level.slots {
                var raw = slot.raw >> 16
                if slot.isPointer { raw = 0x8000 | UInt32((origin - Int(slot.raw)) >> 1) }
                out.append(UInt8(truncatingIfNeeded: raw >> 8))
                out.append(UInt8(truncatingIfNeeded: raw))
                origin += 2
            }
        }
    }

    /// Orders a dictionary's key/value pairs: integer keys first (ascending), then string keys
    /// by unsigned byte comparison, shorter first on a common prefix.
    func sortDictionary(_ level: inout Level) {
        let count = level.keys.count
        guard count >= 2 else { return }
        let keys = level.keys
        let isSorted: Bool = out.withUnsafeBytes { bytes in
            for index in 1..<count where Self.compare(keys[index - 1], keys[index], bytes) >= 0 { return false }
            return true
        }
        if isSorted { return }
        var order = Array(0..<count)
        out.withUnsafeBytes { bytes in
            order.sort { Self.compare(keys[$0], keys[$1], bytes) < 0 }
        }
        let oldSlots = level.slots
        for (index, source) in order.enumerated() {
            level.slots[2 * index] = oldSlots[2 * source]
            level.slots[2 * index + 1] = oldSlots[2 * source + 1]
            level.keys[index] = keys[source]
        }
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
        guard levels[0].slots.count == 1 else {
            throw FleeceError(.encodeError, levels[0].slots.isEmpty ? "nothing was written before finish()"
                              : "only one top-level value may be written (got \(levels[0].slots.count))")
        }
        var root = levels[0]
        checkPointerWidths(&root, origin: out.count)
        emitSlots(root)
        if root.wide {
            // The trailer must be a 2-byte value: a narrow pointer back to the 4-byte root.
            out.append(0x80)
            out.append(0x02)
        }
        let result = out
        return result
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
