import Glibc

/// Reading values back out of an index key, for queries the index's entries answer alone
/// (``IndexCoverage``). The encoding keeps strings and booleans exactly; a number loses
/// whether it was an integer; null and MISSING share a byte; arrays and objects are not read.
extension IndexKey {
    /// What an encoded value tells about the value it was made from.
    enum DecodedValue: Equatable {
        /// The value itself (a string or a boolean).
        case exact(QueryValue)
        /// A number, as a double: the value was this number, an integer or not.
        case number(Double)
        /// Not known from the key: null or MISSING, an array or an object.
        case unknown
    }

    /// Calls `body` with each of the first `count` values encoded in `key` from `start` and its
    /// slot, in order, until it returns false (after an array or object, whose end is not looked
    /// for, each is `.unknown`).
    static func decodeEach(_ key: UnsafeRawBufferPointer, from start: Int, count: Int,
                           _ body: (_ slot: Int, _ value: DecodedValue) -> Bool) {
        var slot = 0
        func emit(_ value: DecodedValue) -> Bool {
            defer { slot += 1 }
            return body(slot, value)
        }
        var position = start
        reading: while slot < count, position < key.count {
            let type = key[position]
            position += 1
            switch type {
            case 1: guard emit(.unknown) else { return }
            case 2: guard emit(.exact(.bool(false))) else { return }
            case 3: guard emit(.exact(.bool(true))) else { return }
            case 4:
                guard position + 8 <= key.count else { break reading }
                var sortable: UInt64 = 0
                for offset in 0..<8 { sortable = sortable << 8 | UInt64(key[position + offset]) }
                position += 8
                let bits = sortable & (1 << 63) != 0 ? sortable & ~(1 << 63) : ~sortable
                guard emit(.number(Double(bitPattern: bits))) else { return }
            case 5:
                // Up to the 0x00 0x00 that ends it; 0x00 0xFF stands for a 0x00 in the text.
                let start = position
                var escaped = false
                var end = -1
                while position + 1 < key.count {
                    if key[position] == 0 {
                        if key[position + 1] == 0 { end = position; position += 2; break }
                        escaped = true
                        position += 2
                    } else {
                        position += 1
                    }
                }
                guard end >= 0 else { break reading }
                let text = UnsafeRawBufferPointer(rebasing: key[start..<end])
                if !escaped {
                    guard emit(.exact(.string(String(decoding: text, as: UTF8.self)))) else { return }
                } else {
                    var bytes: [UInt8] = []
                    var index = 0
                    while index < text.count {
                        bytes.append(text[index])
                        index += text[index] == 0 ? 2 : 1
                    }
                    guard emit(.exact(.string(String(decoding: bytes, as: UTF8.self)))) else { return }
                }
            default:
                break reading   // an array or object: its end is not looked for
            }
        }
        while slot < count { guard emit(.unknown) else { return } }
    }
}

extension IndexKey {
    /// Where the value encoded in `key` at `position` ends (one past its last byte); nil for an
    /// array or object, whose end is not looked for, or a key cut short.
    static func endOfValue(in key: UnsafeRawBufferPointer, at position: Int) -> Int? {
        guard position < key.count else { return nil }
        switch key[position] {
        case 1, 2, 3:
            return position + 1
        case 4:
            return position + 9 <= key.count ? position + 9 : nil
        case 5:
            // Up to the 0x00 0x00 that ends it; 0x00 0xFF stands for a 0x00 in the text.
            guard let base = key.baseAddress else { return nil }
            var index = position + 1
            while index < key.count, let zero = memchr(base + index, 0, key.count - index) {
                let offset = base.distance(to: UnsafeRawPointer(zero))
                guard offset + 1 < key.count else { return nil }
                if key[offset + 1] == 0 { return offset + 2 }
                index = offset + 2
            }
            return nil
        default:
            return nil
        }
    }
}
