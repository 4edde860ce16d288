/// Raw, unchecked reads of the Fleece layout (formats.md §1), plus the validation that makes
/// later unchecked reads safe. Offsets are byte offsets from `base`.
struct FleeceReader {
    let base: UnsafeRawPointer
    let count: Int

    @inline(__always) func byte(_ offset: Int) -> UInt8 { base.load(fromByteOffset: offset, as: UInt8.self) }

    @inline(__always) func isPointer(_ offset: Int) -> Bool { byte(offset) >= 0x80 }

    /// The target of the pointer at `offset`; a pointer reached through a pointer is wide.
    /// Offsets are taken with all 15/31 bits, which also reads CBL 2.0's pre-"extern" data.
    @inline(__always)
    func deref(_ offset: Int, wide: Bool) -> Int {
        var offset = offset
        var wide = wide
        while true {
            let distance = pointerDistance(offset, wide: wide)
            offset -= distance
            if !isPointer(offset) { return offset }
            wide = true
        }
    }

    /// The value held in a collection slot at `offset` (following a pointer if it is one).
    @inline(__always)
    func resolve(_ offset: Int, wide: Bool) -> Int {
        isPointer(offset) ? deref(offset, wide: wide) : offset
    }

    /// A collection's count, whether it is wide, and where its first item is.
    @inline(__always)
    func collection(_ offset: Int) -> (count: Int, wide: Bool, first: Int) {
        let b0 = byte(offset)
        var count = Int(b0 & 0x07) << 8 | Int(byte(offset + 1))
        var first = offset + 2
        if count == 0x7FF {
            let (extra, length) = varint(at: first, limit: count)
            count += Int(extra)
            first += length
            first += first & 1
        }
        return (count, b0 & 0x08 != 0, first)
    }

    /// Decodes an unsigned LEB128 varint; (0, 0) when it is malformed or runs past `limit`.
    func varint(at offset: Int, limit: Int) -> (UInt64, Int) {
        var result: UInt64 = 0
        var shift: UInt64 = 0
        var index = offset
        while index < self.count && index - offset < 10 {
            let byte = self.byte(index)
            result |= UInt64(byte & 0x7F) << shift
            index += 1
            if byte < 0x80 { return (result, index - offset) }
            shift += 7
        }
        return (0, 0)
    }

    /// The payload (start, length) of a string or data value.
    @inline(__always)
    func stringBytes(_ offset: Int) -> (start: Int, count: Int) {
        let length = Int(byte(offset) & 0x0F)
        if length < 15 { return (offset + 1, length) }
        let (value, size) = varint(at: offset + 1, limit: count)
        return (offset + 1 + size, Int(truncatingIfNeeded: value))
    }

    // MARK: Root and validation

    /// The root value's offset and the end of the space it must fit in.
    func findRoot() throws -> (offset: Int, end: Int) {
        guard count >= 2 else { throw FleeceError(.invalidData, "Fleece data is empty or shorter than 2 bytes") }
        guard count & 1 == 0 else { throw FleeceError(.invalidData, "Fleece data has an odd length (\(count) bytes)") }
        let trailer = count - 2
        guard isPointer(trailer) else {
            guard count == 2 else {
                throw FleeceError(.invalidData, "Fleece data does not end in a pointer to its root", offset: trailer)
            }
            return (0, 2)
        }
        return try checkedDeref(trailer, wide: false)
    }

    /// How far back the pointer at `offset` points (its 15 or 31 bits, in 2-byte units).
    @inline(__always)
    func pointerDistance(_ offset: Int, wide: Bool) -> Int {
        if wide {
            return Int(UInt32(byte(offset) & 0x7F) << 24 | UInt32(byte(offset + 1)) << 16
                | UInt32(byte(offset + 2)) << 8 | UInt32(byte(offset + 3))) << 1
        }
        return Int(UInt16(byte(offset) & 0x7F) << 8 | UInt16(byte(offset + 1))) << 1
    }

    /// Follows a pointer chain, checking every hop lands inside the data and before itself.
    func checkedDeref(_ offset: Int, wide: Bool) throws -> (offset: Int, end: Int) {
        var offset = offset
        var wide = wide
        while true {
            let size = wide ? 4 : 2
            guard offset >= 0, offset + size <= count else {
                throw FleeceError(.invalidData, "pointer runs past the end of the data", offset: offset)
            }
            let distance = pointerDistance(offset, wide: wide)
            guard distance > 0, distance <= offset else {
                throw FleeceError(.invalidData, "pointer offset \(distance) points outside the data", offset: offset)
            }
            let target = offset - distance
            guard isPointer(target) else { return (target, offset) }
            guard target + 4 <= offset else {
                throw FleeceError(.invalidData, "pointer chain overlaps itself", offset: target)
            }
            offset = target
            wide = true
        }
    }

    /// Validates the value at `offset`, which must end at or before `end`, and everything it
    /// refers to. A collection's items can only point backwards, below their own slot, so
    /// every walk terminates; each collection may be reached only once.
    func validate(_ offset: Int, end: Int) throws {
        // One bit per 2-byte unit: which collections were reached. On the stack for bodies of
        // common sizes, and a plain buffer, not an array (no uniqueness check per write).
        let words = (count >> 7) + 1
        try withUnsafeTemporaryAllocation(of: UInt64.self, capacity: words) { visited in
            visited.initialize(repeating: 0)
            try validate(offset, end: end, depth: 0, visited: visited)
        }
    }

    static let maximumDepth = 512

    private func validate(_ offset: Int, end: Int, depth: Int, visited: UnsafeMutableBufferPointer<UInt64>) throws {
        guard offset >= 0, offset + 2 <= end else {
            throw FleeceError(.invalidData, "value runs past the end of its space", offset: offset)
        }
        let b0 = byte(offset)
        switch b0 >> 4 {
        case 0:
            return
        case 1:
            guard offset + 2 + Int(b0 & 0x07) <= end else {
                throw FleeceError(.invalidData, "integer runs past the end of its space", offset: offset)
            }
        case 2:
            guard offset + (b0 & 0x08 != 0 ? 10 : 6) <= end else {
                throw FleeceError(.invalidData, "float runs past the end of its space", offset: offset)
            }
        case 3:
            guard b0 & 0x03 == 0 else { throw FleeceError(.invalidData, "unknown special value 0x\(String(b0, radix: 16))", offset: offset) }
        case 4, 5:
            let length = Int(b0 & 0x0F)
            if length < 15 {
                guard offset + 1 + length <= end else {
                    throw FleeceError(.invalidData, "string or data runs past the end of its space", offset: offset)
                }
            } else {
                let (value, size) = varint(at: offset + 1, limit: end)
                guard size > 0, value <= UInt64(end), offset + 1 + size + Int(value) <= end else {
                    throw FleeceError(.invalidData, "string or data has a bad length", offset: offset)
                }
            }
        case 6, 7:
            try validateCollection(offset, end: end, depth: depth, visited: visited)
        default:
            throw FleeceError(.invalidData, "unexpected pointer where a value was expected", offset: offset)
        }
    }

    private func validateCollection(_ offset: Int, end: Int, depth: Int,
                                    visited: UnsafeMutableBufferPointer<UInt64>) throws {
        guard depth < Self.maximumDepth else {
            throw FleeceError(.invalidData, "collections nested deeper than \(Self.maximumDepth) levels", offset: offset)
        }
        let b0 = byte(offset)
        var itemCount = Int(b0 & 0x07) << 8 | Int(byte(offset + 1))
        var first = offset + 2
        if itemCount == 0x7FF {
            let (extra, size) = varint(at: first, limit: end)
            guard size > 0, extra <= UInt64(count) else {
                throw FleeceError(.invalidData, "collection has a bad count", offset: offset)
            }
            itemCount += Int(extra)
            first += size
            first += first & 1
        }
        let isDict = b0 >> 4 == 7
        if isDict { itemCount *= 2 }
        let width = b0 & 0x08 != 0 ? 4 : 2
        guard itemCount <= (end - first) / width, first + itemCount * width <= end else {
            throw FleeceError(.invalidData, "collection of \(isDict ? itemCount / 2 : itemCount) items runs past the end of its space", offset: offset)
        }
        // Fleece's encoder never points to one collection twice; a document that does could
        // make every full walk exponential, so it is rejected.
        let bit = offset >> 1
        guard visited[bit >> 6] & (1 << UInt64(bit & 63)) == 0 else {
            throw FleeceError(.invalidData, "collection is referenced more than once", offset: offset)
        }
        visited[bit >> 6] |= 1 << UInt64(bit & 63)
        var item = first
        for index in 0..<itemCount {
            let next = item + width
            // An inline small integer (most dictionary keys: shared-key numbers) is valid as it
            // stands: its slot is inside the collection, checked above.
            if byte(item) >> 4 == 0 {
                item = next
                continue
            }
            let target: Int
            let targetEnd: Int
            if isPointer(item) {
                (target, targetEnd) = try checkedDeref(item, wide: width == 4)
            } else {
                target = item
                targetEnd = next
            }
            let tag = byte(target) >> 4
            if isDict && index & 1 == 0 {
                guard tag == 4 || tag == 0 else {
                    throw FleeceError(.invalidData, "dictionary key is not a string or integer", offset: item)
                }
            }
            // A short string (the most common value) is checked here: the same test as
            // `validate`'s, without the call.
            if tag == 4, byte(target) & 0x0F < 15, target >= 0, target + 2 <= targetEnd,
               target + 1 + Int(byte(target) & 0x0F) <= targetEnd {
                item = next
                continue
            }
            try validate(target, end: targetEnd, depth: depth + 1, visited: visited)
            item = next
        }
    }
}
