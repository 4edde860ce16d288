import PropertyBased
import Testing
import TestSupport
@testable import Fleece

/// ``SmallKey`` packs short strings with word loads and ``SmallKeyTable`` maps them; both must
/// behave exactly like the obvious byte-by-byte packing and a `Dictionary`, for every length.
@Suite(.ownThreads) struct SmallKeyPropertyTests {
    /// Byte `i` in bits `8i…` of the low word, then of the high word: the reference packing.
    private static func packedByteByByte(_ bytes: [UInt8]) -> (UInt64, UInt64) {
        var low: UInt64 = 0, high: UInt64 = 0
        for (index, byte) in bytes.enumerated() {
            if index < 8 { low |= UInt64(byte) << (8 * UInt64(index)) } else { high |= UInt64(byte) << (8 * UInt64(index - 8)) }
        }
        return (low, high)
    }

    @Test func packingMatchesBytes() async {
        await propertyCheck(count: 500, input: Gen.int(in: 0...255).array(of: 0...18)) { ints in
            let bytes = ints.map { UInt8($0) }
            // Packed from inside a larger buffer, so a load past either end would read other bytes.
            let padded = [0xAA] + bytes + [0x55]
            let key = padded.withUnsafeBytes { SmallKey(UnsafeRawBufferPointer(rebasing: $0[1..<(1 + bytes.count)])) }
            if bytes.count > 16 {
                #expect(key == nil)
            } else {
                let (low, high) = Self.packedByteByByte(bytes)
                #expect(key?.low == low && key?.high == high && key?.length == UInt8(bytes.count), "\(bytes)")
            }
        }
    }

    @Test func tableAgreesWithDictionary() async {
        let operations = Gen.int(in: 0...5_000).array(of: 0...600)
        await propertyCheck(count: 100, input: operations) { picks in
            var table = SmallKeyTable()
            var expected: [String: Int] = [:]
            for (step, pick) in picks.enumerated() {
                let text = "k\(pick % 300)" + String(repeating: "x", count: pick % 11)
                let key = Array(text.utf8).withUnsafeBytes { SmallKey($0) }
                guard let key else { continue }
                if pick % 7 == 0 {
                    #expect(table[key] == expected[text])
                } else {
                    table[key] = step
                    expected[text] = step
                }
                if pick == 4_999 {
                    table.removeAll()
                    expected.removeAll()
                }
            }
            #expect(table.count == expected.count)
            for (text, value) in expected {
                #expect(Array(text.utf8).withUnsafeBytes { SmallKey($0).flatMap { table[$0] } } == value)
            }
        }
    }
}
