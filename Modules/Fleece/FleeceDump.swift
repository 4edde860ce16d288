/// An annotated listing of Fleece bytes for people: one line per value or collection slot,
/// in offset order, with its bytes, its type and its value.
///
/// ```
/// 0000: 43 66 6f 6f       string "foo"
/// 0004: 70 01             dict (1)
/// 0006:   80 03           key &"foo" (@0000)
/// ```
package enum FleeceDump {
    /// The listing of `bytes` (validated first).
    ///
    /// - Throws: ``FleeceError`` when the bytes are not valid Fleece.
    package static func dump(_ bytes: [UInt8], sharedKeys: SharedKeys? = nil) throws -> String {
        let document = try FleeceDocument(bytes: bytes, sharedKeys: sharedKeys)
        var lines: [Int: String] = [:]
        visit(document.root, document: document, lines: &lines)
        let reader = document.reader
        // The trailer: the last 2 bytes (and a wide root slot before them).
        if bytes.count > 2 {
            let trailer = bytes.count - 2
            let target = reader.deref(trailer, wide: false)
            lines[trailer] = line(trailer, bytes[trailer..<bytes.count], "root -> @\(hex4(target))")
            if trailer >= 4 && reader.isPointer(trailer - 4) && lines[trailer - 4] == nil && target < trailer - 4 {
                lines[trailer - 4] = line(trailer - 4, bytes[(trailer - 4)..<trailer], "wide root pointer")
            }
        }
        return lines.keys.sorted().compactMap { lines[$0] }.joined(separator: "\n") + "\n"
    }

    static func hex4(_ value: Int) -> String {
        let text = String(value, radix: 16)
        return String(repeating: "0", count: max(0, 4 - text.count)) + text
    }

    static func line(_ offset: Int, _ bytes: ArraySlice<UInt8>, _ text: String, indent: Bool = false) -> String {
        let shown = bytes.prefix(8).map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined(separator: " ")
            + (bytes.count > 8 ? "…" : "")
        let column = (indent ? "  " : "") + shown
        return "\(hex4(offset)): \(column.padding(toLength: max(column.count, 28)))\(text)"
    }

    static func summary(_ value: FleeceValue) -> String {
        switch value.type {
        case .array: return "array (\(FleeceArray(value).count))"
        case .dictionary: return "dict (\(FleeceDict(value).count))"
        case .string: return "string " + value.json()
        case .data: return "data " + value.json()
        case .number: return (value.isFloatingPoint ? (value.isDouble ? "double " : "float ") : "int ") + value.json()
        default: return value.json()
        }
    }

    static func size(of value: FleeceValue) -> Int {
        let reader = value.reader
        switch value.tag {
        case 0, 3: return 2
        case 1: return 2 + Int(value.tagByte & 0x07)
        case 2: return value.tagByte & 0x08 != 0 ? 10 : 6
        case 4, 5:
            let (start, count) = reader.stringBytes(value.offset)
            return start + count - value.offset
        default:
            return reader.collection(value.offset).first - value.offset
        }
    }

    private static func visit(_ value: FleeceValue, document: FleeceDocument, lines: inout [Int: String]) {
        guard lines[value.offset] == nil else { return }
        let all = document.bytes
        let end = min(all.count, value.offset + size(of: value))
        lines[value.offset] = line(value.offset, all[value.offset..<end], summary(value))
        guard value.tag >= 6 else { return }
        let reader = value.reader
        let (count, wide, first) = reader.collection(value.offset)
        let width = wide ? 4 : 2
        let slots = value.tag == 7 ? 2 * count : count
        for index in 0..<slots {
            let slot = first + index * width
            let target = FleeceValue(document: document, offset: reader.resolve(slot, wide: wide))
            let role = value.tag == 7 ? (index & 1 == 0 ? "key " : "    ") : ""
            let text: String
            if reader.isPointer(slot) {
                var label = summary(target)
                if value.tag == 7 && index & 1 == 0 && target.tag == 0, let name = document.sharedKeys?.string(for: Int(target.int64)) {
                    label += " (\"\(name)\")"
                }
                text = role + "&" + label + " (@\(hex4(target.offset)))"
                visit(target, document: document, lines: &lines)
            } else {
                var label = summary(target)
                if value.tag == 7 && index & 1 == 0 && target.tag == 0, let name = document.sharedKeys?.string(for: Int(target.int64)) {
                    label += " (\"\(name)\")"
                }
                text = role + label
            }
            lines[slot] = line(slot, all[slot..<(slot + width)], text, indent: true)
        }
    }
}

extension String {
    fileprivate func padding(toLength length: Int) -> String {
        count >= length ? self + " " : self + String(repeating: " ", count: length - count)
    }
}
