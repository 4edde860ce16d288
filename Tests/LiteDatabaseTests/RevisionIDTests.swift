import Crypto
import Testing
import TestSupport
@testable import LiteDatabase

@Suite(.ownThreads) struct RevisionIDTests {
    @Test func asciiFormRoundTrips() throws {
        let id = try RevisionID(parsing: "2-db9941f74d7fd45d60c272b796ae50c7")
        #expect(id.generation == 2)
        #expect(id.digest.count == 16)
        #expect(id.string == "2-db9941f74d7fd45d60c272b796ae50c7")
    }

    @Test(arguments: ["", "-abcd", "1-", "0-abcd", "1-ABCD", "1-abc", "x-abcd", "1abcd",
                      "1-abcg", "123456789012345678901-ab", "99999999999999999999-ab"])
    func malformedASCIIIsRejected(text: String) {
        #expect(throws: DatabaseError.self) { try RevisionID(parsing: text) }
    }

    @Test func binaryFormMatchesLiteCore() throws {
        // kv_default.version of doc-001 in shared/fixtures/v2/upgrade_2.7.cblite2: 01 AB CD.
        let id = try RevisionID(binary: [0x01, 0xAB, 0xCD])
        #expect(id.string == "1-abcd")
        #expect(id.binary == [0x01, 0xAB, 0xCD])
    }

    @Test func largeGenerationsUseAMultiByteVarint() throws {
        let id = RevisionID(generation: 300, digest: [0xFF])
        #expect(id.binary == [0xAC, 0x02, 0xFF])
        #expect(try RevisionID(binary: id.binary) == id)
    }

    @Test func binaryWithoutDigestOrGenerationIsRejected() {
        #expect(throws: DatabaseError.self) { try RevisionID(binary: [0x01]) }
        #expect(throws: DatabaseError.self) { try RevisionID(binary: [0x00, 0xAB]) }
        #expect(throws: DatabaseError.self) { try RevisionID(binary: [0x81]) }
    }

    @Test func ordersByGenerationThenDigest() throws {
        let a = try RevisionID(parsing: "2-aa")
        let b = try RevisionID(parsing: "2-ab")
        let c = try RevisionID(parsing: "10-00")
        #expect(a < b)
        #expect(b < c)
        #expect([c, a, b].sorted() == [a, b, c])
    }

    @Test func firstRevisionIDMatchesCouchbaseLite() throws {
        // doc1 of shared/fixtures/v2/android200-sqlite, saved by Couchbase Lite 2.0: its rev ID
        // is the SHA-1 of (0 ‖ 0 ‖ its Fleece body) as stored in its revision tree.
        let body = bytes(fromHex: "4a746578742f706c61696e0045407479706544626c6f62004f21736861312d503169356b492f736f73713734352f39424452376b4567684b70733d007004000200070003802200048018801f801d7002000041310001800d8005")
        let id = RevisionID.next(after: nil, deleted: false, body: body)
        #expect(id.string == "1-e19e52cafa5407960394781bcaf6174a51a6d789")
    }

    @Test func childRevisionIDHashesParentDeletionAndBody() throws {
        let parent = try RevisionID(parsing: "1-e19e52cafa5407960394781bcaf6174a51a6d789")
        let body: [UInt8] = [0x70, 0x00]
        var expected = Insecure.SHA1()
        expected.update(data: [UInt8(parent.string.utf8.count)] + Array(parent.string.utf8) + [1] + body)
        let id = RevisionID.next(after: parent, deleted: true, body: body)
        #expect(id.generation == 2)
        #expect(id.digest == Array(expected.finalize()))
        #expect(id != RevisionID.next(after: parent, deleted: false, body: body))
    }
}

func bytes(fromHex hex: String) -> [UInt8] {
    var result: [UInt8] = []
    var iterator = hex.makeIterator()
    while let high = iterator.next(), let low = iterator.next() {
        result.append(UInt8(String([high, low]), radix: 16) ?? 0)
    }
    return result
}
