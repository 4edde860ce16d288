import Testing
import TestSupport
@testable import BLIP

@Suite(.ownThreads) struct VarintTests {
    @Test func knownEncodings() {
        #expect(BLIPVarint.encode(0) == [0])
        #expect(BLIPVarint.encode(0x7F) == [0x7F])
        #expect(BLIPVarint.encode(0x80) == [0x80, 0x01])
        #expect(BLIPVarint.encode(65_508) == [0xE4, 0xFF, 0x03])
        #expect(BLIPVarint.encode(.max) == [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01])
    }

    @Test func roundTripsAcrossTheRange() throws {
        var generator = SplitMix64(seed: 0xB11F)
        var values: [UInt64] = [0, 1, 127, 128, 16_383, 16_384, UInt64(UInt32.max), .max, .max - 1]
        for bits in 1...64 { values.append(generator.next() >> UInt64(64 - bits)) }
        for value in values {
            let encoded = BLIPVarint.encode(value)
            #expect(encoded.count <= BLIPVarint.maxLength)
            var index = 0
            #expect(try BLIPVarint.read(encoded + [0xAA], at: &index) == value)
            #expect(index == encoded.count)
        }
    }

    @Test func malformedVarintsThrow() {
        var index = 0
        #expect(throws: BLIPError.protocolViolation("varint is truncated")) { try BLIPVarint.read([UInt8](), at: &index) }
        index = 0
        #expect(throws: BLIPError.protocolViolation("varint is truncated")) { try BLIPVarint.read([0x80, 0x80], at: &index) }
        index = 0
        let overflow: [UInt8] = [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x02]
        #expect(throws: BLIPError.protocolViolation("varint overflows 64 bits")) { try BLIPVarint.read(overflow, at: &index) }
        index = 0
        let tooLong = [UInt8](repeating: 0x80, count: 10) + [0]
        #expect(throws: BLIPError.self) { try BLIPVarint.read(tooLong, at: &index) }
        #expect(index == 0, "index unchanged after a failure")
    }
}
