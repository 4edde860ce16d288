/// Byte-level mutations for the decoders' fuzz tests: bit flips, overwrites with interesting
/// values, insertions, deletions, truncation, duplicated runs and spliced-in tokens.
package enum FuzzMutator {
    /// Byte values that often sit on a decoder's boundaries.
    static let interestingBytes: [UInt8] = [0x00, 0x01, 0x7F, 0x80, 0xFF, 0xFE, 0x20, 0x22, 0x5C, 0x60, 0x70, 0x4F,
                                            0x7B, 0x7D, 0x5B, 0x5D, 0x2C, 0x3A]

    /// Returns `input` with one to four random edits; `tokens` (keywords, delimiters of the
    /// format) are spliced in now and then so text formats reach their deeper branches.
    package static func mutate(_ input: [UInt8], _ random: inout SplitMix64, tokens: [[UInt8]] = []) -> [UInt8] {
        var bytes = input
        let edits = Int.random(in: 1...4, using: &random)
        for _ in 0..<edits {
            if bytes.isEmpty {
                bytes.append(UInt8.random(in: 0...255, using: &random))
                continue
            }
            let index = Int.random(in: 0..<bytes.count, using: &random)
            switch Int.random(in: 0..<9, using: &random) {
            case 0: bytes[index] ^= UInt8(1 << Int.random(in: 0..<8, using: &random))
            case 1: bytes[index] = UInt8.random(in: 0...255, using: &random)
            case 2: bytes.insert(UInt8.random(in: 0...255, using: &random), at: index)
            case 3: bytes.remove(at: index)
            case 4: bytes = Array(bytes[0..<index])
            case 5: bytes[index] = interestingBytes[Int.random(in: 0..<interestingBytes.count, using: &random)]
            case 6:
                // Repeat a short run (nesting, long strings, repeated keys).
                let length = min(Int.random(in: 1...16, using: &random), bytes.count - index)
                let run = bytes[index..<index + length]
                let copies = Int.random(in: 1...8, using: &random)
                bytes.insert(contentsOf: Array(repeating: Array(run), count: copies).joined(), at: index)
            case 7 where !tokens.isEmpty:
                bytes.insert(contentsOf: tokens[Int.random(in: 0..<tokens.count, using: &random)], at: index)
            default:
                // Overwrite a 1–8-byte window with big-endian boundary integers (lengths, counts).
                let value: UInt64 = [0, 1, 0x7F, 0x80, 0xFF, 0xFFFF, 0x7FFF_FFFF, 0xFFFF_FFFF, .max][
                    Int.random(in: 0..<9, using: &random)]
                let width = min(Int.random(in: 1...8, using: &random), bytes.count - index)
                for offset in 0..<width {
                    bytes[index + offset] = UInt8(truncatingIfNeeded: value >> UInt64(8 * (width - 1 - offset)))
                }
            }
        }
        return bytes
    }

    /// A mutated string: the bytes of `input` mutated, then decoded with repair (so the result is
    /// always a `String`, with U+FFFD where the mutation broke UTF-8).
    package static func mutate(_ input: String, _ random: inout SplitMix64, tokens: [String] = []) -> String {
        String(decoding: mutate(Array(input.utf8), &random, tokens: tokens.map { Array($0.utf8) }), as: UTF8.self)
    }

    /// `count` random bytes.
    package static func randomBytes(_ count: Int, _ random: inout SplitMix64) -> [UInt8] {
        (0..<count).map { _ in UInt8.random(in: 0...255, using: &random) }
    }
}
