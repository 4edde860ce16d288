import PropertyBased
import Testing
import TestSupport
@testable import LiteDatabase

/// `RevisionID.string` writes its ASCII bytes into one buffer; for generated generations (every
/// digit count up to UInt64.max) and digests, it must be the decimal generation, a dash and the
/// lowercase hex digest, and parse back to the same ID.
@Suite(.ownThreads) struct RevisionIDPropertyTests {
    private static let hex = Array("0123456789abcdef")

    @Test func stringIsGenerationDashHexAndParsesBack() async {
        // A digit count first, so short and long generations are both common.
        let digitCounts = Gen.int(in: 1...20)
        let seeds = Gen.uint64()
        let digests = Gen.uint8(in: 0...255).array(of: 0...24)
        await propertyCheck(count: 500, input: digitCounts, seeds, digests) { digits, seed, digest in
            let low = (1..<digits).reduce(UInt64(1)) { value, _ in value * 10 }
            let generation = digits == 20 ? max(seed, low) : low + seed % (low * 9)
            let id = RevisionID(generation: generation, digest: digest)
            let expected = String(generation) + "-" + String(digest.flatMap { [Self.hex[Int($0 >> 4)], Self.hex[Int($0 & 0x0F)]] })
            #expect(id.string == expected)
            if !digest.isEmpty {
                #expect((try? RevisionID(parsing: id.string)) == id)
            }
        }
    }
}
