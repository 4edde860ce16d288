import Foundation

/// An independent model of how Couchbase Lite 2.8's Fleece encoder lays out a JSON document
/// written value by value (the JSON converter's path), kept apart from `FleeceEncoder` and
/// written from the rules of Fleece's `Encoder.cc` at the commit Couchbase Lite 2.8.9 uses:
///
/// - null/true/false and ints in −2048…2047 are 2-byte inline items; a 0- or 1-byte string is
///   inline too (`placeValue<true>`), everything else is written out of line at the next even
///   position and referenced by a pointer (`placeValue<false>`: long ints, floats, doubles,
///   longer strings, non-empty collections); an empty collection is an inline item.
/// - Long ints use the fewest little-endian bytes that keep the sign (unsigned: no sign byte);
///   doubles exactly representable as floats are written as 4-byte floats.
/// - Strings of 2…15 bytes are written once; a repeat becomes a pointer to the first copy when
///   the collection is already wide or the distance is at most 0x7FFE − 32.
/// - A collection's items are pointers or inline values; it is wide (4-byte items) when some
///   pointer would reach further than 0x7FFE bytes back from its slot.
/// - Object keys: shared (small-int) when eligible (≤ 16 bytes of [A-Za-z0-9_-], table not
///   full), numbered in the order first met; keys and values are written in text order, the
///   entries sorted at the end (integer keys first, by number, then strings by bytes).
/// - The root: an inline root is written as is; otherwise a 2-byte pointer to it (or, when too
///   far, a 4-byte pointer followed by a 2-byte pointer back to it).
package final class FleeceModelEncoder {
    /// A JSON value with object members in text order.
    package indirect enum JSON: Equatable {
        case null, bool(Bool), int(Int64), uint(UInt64), double(Double), string(String)
        case array([JSON])
        case object([(String, JSON)])

        package static func == (lhs: JSON, rhs: JSON) -> Bool {
            switch (lhs, rhs) {
            case (.null, .null): return true
            case let (.bool(a), .bool(b)): return a == b
            case let (.int(a), .int(b)): return a == b
            case let (.uint(a), .uint(b)): return a == b
            case let (.double(a), .double(b)): return a == b
            case let (.string(a), .string(b)): return a == b
            case let (.array(a), .array(b)): return a == b
            case let (.object(a), .object(b)): return a.map(\.0) == b.map(\.0) && a.map(\.1) == b.map(\.1)
            default: return false
            }
        }
    }

    private enum Item {
        /// Two bytes of an inline value.
        case inline(UInt8, UInt8)
        /// A pointer to an absolute offset.
        case pointer(Int)
    }

    private var out: [UInt8] = []
    private var strings: [String: Int] = [:]
    /// The shared-key table (updated as keys are met).
    package private(set) var sharedKeys: [String]
    private var sharedIndex: [String: Int] = [:]
    private let usesSharedKeys: Bool

    package init(sharedKeys: [String]?) {
        usesSharedKeys = sharedKeys != nil
        self.sharedKeys = sharedKeys ?? []
        for (index, key) in self.sharedKeys.enumerated() { sharedIndex[key] = index }
    }

    /// Encodes one document.
    package func encode(_ value: JSON) -> [UInt8] {
        out = []
        strings = [:]
        let root = item(for: value, inWideCollection: false)
        switch root {
        case .inline(let a, let b):
            out += [a, b]
        case .pointer(let target):
            pad()
            let distance = out.count - target
            if distance <= 0x7FFE {
                append16(0x8000 | UInt16(distance >> 1))
            } else {
                append32(0x8000_0000 | UInt32(distance >> 1))
                append16(0x8000 | 2)   // 4 bytes back, to the wide pointer
            }
        }
        return out
    }

    private func pad() { if out.count & 1 != 0 { out.append(0) } }
    private func append16(_ value: UInt16) { out += [UInt8(value >> 8), UInt8(value & 0xFF)] }
    private func append32(_ value: UInt32) {
        out += [UInt8(value >> 24), UInt8((value >> 16) & 0xFF), UInt8((value >> 8) & 0xFF), UInt8(value & 0xFF)]
    }

    /// Writes `bytes` out of line at the next even position; returns that position.
    private func writeOut(_ bytes: [UInt8]) -> Int {
        pad()
        let position = out.count
        out += bytes
        return position
    }

    private func item(for value: JSON, inWideCollection wide: Bool) -> Item {
        switch value {
        case .null: return .inline(0x30, 0)
        case .bool(let flag): return .inline(flag ? 0x38 : 0x34, 0)
        case .int(let number):
            if number >= -2048 && number < 2048 {
                return .inline(UInt8((number >> 8) & 0x0F), UInt8(truncatingIfNeeded: number))
            }
            return .pointer(writeOut(Self.longInt(UInt64(bitPattern: number), unsigned: false)))
        case .uint(let number):
            if number < 2048 { return .inline(UInt8(number >> 8), UInt8(truncatingIfNeeded: number)) }
            return .pointer(writeOut(Self.longInt(number, unsigned: true)))
        case .double(let number):
            if number.magnitude <= Double(Float.greatestFiniteMagnitude), Double(Float(number)) == number {
                let bits = Float(number).bitPattern
                return .pointer(writeOut([0x20, 0x00] + (0..<4).map { UInt8((bits >> (8 * UInt32($0))) & 0xFF) }))
            }
            let bits = number.bitPattern
            return .pointer(writeOut([0x28, 0x00] + (0..<8).map { UInt8((bits >> (8 * UInt64($0))) & 0xFF) }))
        case .string(let text):
            return string(text, inWideCollection: wide)
        case .array(let items):
            if items.isEmpty { return .inline(0x60, 0) }
            var slots: [Item] = []
            for element in items { slots.append(item(for: element, inWideCollection: false)) }
            return .pointer(writeCollection(tag: 0x60, count: items.count, slots: slots))
        case .object(let members):
            if members.isEmpty { return .inline(0x70, 0) }
            var entries: [(sortKey: SortKey, key: Item, value: Item)] = []
            for (key, member) in members {
                let keyItem: Item
                let sortKey: SortKey
                if let index = sharedKey(key) {
                    keyItem = .inline(UInt8(index >> 8), UInt8(index & 0xFF))
                    sortKey = .number(index)
                } else {
                    keyItem = string(key, inWideCollection: false)
                    sortKey = .text(Array(key.utf8))
                }
                entries.append((sortKey, keyItem, item(for: member, inWideCollection: false)))
            }
            entries.sort { $0.sortKey < $1.sortKey }
            return .pointer(writeCollection(tag: 0x70, count: entries.count,
                                            slots: entries.flatMap { [$0.key, $0.value] }))
        }
    }

    private enum SortKey: Comparable {
        case number(Int)
        case text([UInt8])

        static func < (lhs: SortKey, rhs: SortKey) -> Bool {
            switch (lhs, rhs) {
            case let (.number(a), .number(b)): return a < b
            case (.number, .text): return true
            case (.text, .number): return false
            case let (.text(a), .text(b)): return a.lexicographicallyPrecedes(b)
            }
        }
    }

    private func sharedKey(_ key: String) -> Int? {
        guard usesSharedKeys else { return nil }
        if let index = sharedIndex[key] { return index }
        let bytes = Array(key.utf8)
        let eligible = bytes.count <= 16 && bytes.allSatisfy {
            ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x41 && $0 <= 0x5A) || ($0 >= 0x61 && $0 <= 0x7A) || $0 == 0x5F || $0 == 0x2D
        }
        guard eligible, sharedKeys.count < 2048 else { return nil }
        sharedIndex[key] = sharedKeys.count
        sharedKeys.append(key)
        return sharedKeys.count - 1
    }

    private func string(_ text: String, inWideCollection wide: Bool) -> Item {
        let bytes = Array(text.utf8)
        if bytes.count < 2 { return .inline(0x40 | UInt8(bytes.count), bytes.first ?? 0) }
        let unique = bytes.count <= 15
        if unique, let offset = strings[text] {
            pad()
            if wide || out.count - offset <= 0x7FFE - 32 { return .pointer(offset) }
        }
        var header: [UInt8]
        if bytes.count < 0x0F {
            header = [0x40 | UInt8(bytes.count)]
        } else {
            header = [0x4F] + Self.varint(bytes.count)
        }
        let position = writeOut(header + bytes)
        if unique { strings[text] = position }
        return .pointer(position)
    }

    /// Writes a collection (header, then items) and returns the header's position.
    private func writeCollection(tag: UInt8, count: Int, slots: [Item]) -> Int {
        var header: [UInt8] = [tag | UInt8(min(count, 0x7FF) >> 8), UInt8(min(count, 0x7FF) & 0xFF)]
        if count >= 0x7FF { header += Self.varint(count - 0x7FF) }
        let position = writeOut(header)
        pad()
        var origin = out.count
        var wide = false
        for slot in slots {
            if case .pointer(let target) = slot, origin - target > 0x7FFE {
                wide = true
                break
            }
            origin += 2
        }
        if wide { out[position] |= 0x08 }
        let width = wide ? 4 : 2
        origin = out.count
        for slot in slots {
            switch slot {
            case .inline(let a, let b):
                out += wide ? [a, b, 0, 0] : [a, b]
            case .pointer(let target):
                let distance = origin - target
                if wide { append32(0x8000_0000 | UInt32(distance >> 1)) } else { append16(0x8000 | UInt16(distance >> 1)) }
            }
            origin += width
        }
        return position
    }

    private static func longInt(_ value: UInt64, unsigned: Bool) -> [UInt8] {
        let bytes = (0..<8).map { UInt8((value >> (8 * UInt64($0))) & 0xFF) }
        var size = 8
        if unsigned {
            while size > 1, bytes[size - 1] == 0 { size -= 1 }
        } else {
            let trim: UInt8 = Int64(bitPattern: value) >= 0 ? 0 : 0xFF
            while size > 1, bytes[size - 1] == trim { size -= 1 }
            if (bytes[size - 1] ^ trim) & 0x80 != 0, size < 8 { size += 1 }
        }
        var encoded = [0x10 | UInt8(size - 1) | (unsigned ? 0x08 : 0)] + bytes[0..<size]
        if encoded.count & 1 != 0 { encoded.append(0) }
        return encoded
    }

    private static func varint(_ value: Int) -> [UInt8] {
        var value = UInt64(value)
        var bytes: [UInt8] = []
        while value >= 0x80 {
            bytes.append(UInt8(value & 0x7F) | 0x80)
            value >>= 7
        }
        bytes.append(UInt8(value))
        return bytes
    }
}

extension FleeceModelEncoder {
    /// Makes random documents from a fixed seed.
    package struct Generator {
        package var random: SplitMix64

        /// A generator starting from `random`.
        package init(random: SplitMix64) { self.random = random }
        let pool = ["name", "type", "id", "a", "b", "0", "10", "-1", "2048", "user_id", "tags", "geo", "x_y-z",
                    "with space", "ünï", "a.b", "sixteen-chars-ok", "seventeen-chars-no", "", "$v", "café"]
        let words = ["", "a", "é", "hi", "hotel", "hello world", "fifteen-chars!!", "sixteen-chars!!!",
                     "Couchbase Lite for Swift", "\"quoted\"\n", "東京"]

        package mutating func int(_ range: ClosedRange<Int>) -> Int { Int.random(in: range, using: &random) }

        mutating func number() -> JSON {
            switch int(0...9) {
            case 0: return .uint(UInt64(int(0...2047)))
            case 1: return .int(-Int64(int(1...2048)))
            case 2: return .uint(UInt64(int(2048...70_000)))
            case 3: return .int(-Int64(int(2049...9_000_000)))
            case 4: return .uint(UInt64.random(in: 1 << 31 ... UInt64(Int64.max), using: &random))
            case 5: return .int(Int64.random(in: Int64.min ... -(1 << 40), using: &random))
            case 6: return .uint(UInt64.random(in: UInt64(Int64.max) ... UInt64.max, using: &random))
            case 7: return .double([1.0, 2048.0, -2049.0, 0.5, -0.25, 1.5, 3.0e38][int(0...6)])
            case 8: return .double(Double.random(in: -1e6 ... 1e6, using: &random))
            default: return .double([1e300, -2.5e-300, 0.1, 123456789.123][int(0...3)])
            }
        }

        mutating func value(depth: Int) -> JSON {
            switch int(0...(depth > 3 ? 5 : 8)) {
            case 0: return .null
            case 1: return .bool(int(0...1) == 1)
            case 2, 3: return number()
            case 4: return .string(words[int(0...words.count - 1)])
            case 5: return .string(int(0...20) == 0 ? String(repeating: "x", count: 40_000) : "s\(int(0...30))-\(int(0...9))")
            case 6: return .array((0..<int(0...6)).map { _ in value(depth: depth + 1) })
            default:
                var members: [(String, JSON)] = []
                var used = Set<String>()
                for _ in 0..<int(0...7) {
                    let key = int(0...3) == 0 ? "k\(int(0...200))" : pool[int(0...pool.count - 1)]
                    guard used.insert(key).inserted else { continue }
                    members.append((key, value(depth: depth + 1)))
                }
                return .object(members)
            }
        }

        package mutating func document() -> JSON {
            while true {
                let candidate = value(depth: 0)
                if case .object = candidate { return candidate }
            }
        }
    }

    /// JSON text for a value, members in their order (numbers so that the parser classifies
    /// them as the model does: integers without a point, doubles with one or an exponent).
    package static func text(_ value: JSON) -> String {
        switch value {
        case .null: return "null"
        case .bool(let flag): return flag ? "true" : "false"
        case .int(let number): return String(number)
        case .uint(let number): return String(number)
        case .double(let number):
            let written = "\(number)"
            return written.contains(".") || written.contains("e") ? written : written + ".0"
        case .string(let string):
            let data = try? JSONSerialization.data(withJSONObject: [string], options: [.fragmentsAllowed])
            let array = data.map { String(decoding: $0, as: UTF8.self) } ?? "[\"\"]"
            return String(array.dropFirst().dropLast())
        case .array(let items): return "[" + items.map(text).joined(separator: ",") + "]"
        case .object(let members):
            return "{" + members.map { text(.string($0.0)) + ":" + text($0.1) }.joined(separator: ",") + "}"
        }
    }

}
