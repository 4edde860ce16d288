/// The properties block: `varint(length)` then alternating NUL-terminated key and value strings
/// (BLIP v3 has no tokenized strings). LiteCore caps the block at 100 KiB.
extension BLIPProperties {
    /// LiteCore's `kMaxPropertiesSize`: larger blocks are refused on both sides.
    package static let maxEncodedSize = 100 * 1024

    /// Appends the block, length prefix included (written even when 0).
    ///
    /// - Throws: `BLIPError.invalidMessage` when a key or value contains a NUL byte or the block
    ///   would exceed ``maxEncodedSize``.
    package func encode(into bytes: inout [UInt8]) throws {
        var block: [UInt8] = []
        for (key, value) in pairs {
            for string in [key, value] {
                let utf8 = Array(string.utf8)
                if utf8.contains(0) {
                    throw BLIPError.invalidMessage("property \"\(key)\" contains a NUL byte")
                }
                block += utf8
                block.append(0)
            }
        }
        guard block.count <= Self.maxEncodedSize else {
            throw BLIPError.invalidMessage(
                "properties take \(block.count) bytes, over BLIP's \(Self.maxEncodedSize)-byte limit")
        }
        BLIPVarint.append(UInt64(block.count), to: &bytes)
        bytes += block
    }

    /// The encoded block, length prefix included.
    package func encoded() throws -> [UInt8] {
        var bytes: [UInt8] = []
        try encode(into: &bytes)
        return bytes
    }

    /// Decodes a properties block at the start of `bytes`.
    ///
    /// - Returns: the properties and the number of bytes the block took (the rest is the body).
    /// - Throws: `BLIPError.protocolViolation` when the block is truncated, too large, not
    ///   NUL-terminated, has an odd number of strings, a repeated key or invalid UTF-8.
    package static func decode<Bytes: Collection<UInt8>>(
        from bytes: Bytes
    ) throws -> (properties: BLIPProperties, length: Int) where Bytes.Index == Int {
        var index = bytes.startIndex
        let declared = try BLIPVarint.read(bytes, at: &index, what: "properties length")
        guard declared <= UInt64(maxEncodedSize) else {
            throw BLIPError.protocolViolation(
                "properties length \(declared) is over BLIP's \(maxEncodedSize)-byte limit")
        }
        let length = Int(declared)
        guard bytes.endIndex - index >= length else {
            throw BLIPError.protocolViolation(
                "properties are truncated: \(length) bytes declared, \(bytes.endIndex - index) present")
        }
        let end = index + length
        guard length > 0 else { return (BLIPProperties(), end - bytes.startIndex) }
        guard bytes[end - 1] == 0 else {
            throw BLIPError.protocolViolation("properties are not NUL-terminated")
        }
        var strings: [String] = []
        var start = index
        for position in index..<end where bytes[position] == 0 {
            guard let string = String(validating: bytes[start..<position], as: UTF8.self) else {
                throw BLIPError.protocolViolation("a property string is not valid UTF-8")
            }
            strings.append(string)
            start = position + 1
        }
        guard strings.count.isMultiple(of: 2) else {
            throw BLIPError.protocolViolation("properties have an odd number of strings")
        }
        var seen = Set<String>()
        var pairs: [(key: String, value: String)] = []
        pairs.reserveCapacity(strings.count / 2)
        for pair in stride(from: 0, to: strings.count, by: 2) {
            let key = strings[pair]
            guard seen.insert(key).inserted else {
                throw BLIPError.protocolViolation("duplicate property name \"\(key)\"")
            }
            pairs.append((key, strings[pair + 1]))
        }
        return (BLIPProperties(uniquePairs: pairs), end - bytes.startIndex)
    }
}
