import Foundation
import Testing
import TestSupport
@testable import Fleece

/// Untrusted bytes are rejected with an error, never a crash or an out-of-bounds read.
@Suite(.ownThreads) struct ValidationTests {
    @Test(arguments: [
        [], [0x00], [0x00, 0x00, 0x00],                 // empty, too short, odd length
        [0x80, 0x00],                                   // pointer of offset 0
        [0x80, 0x05],                                   // pointer before the start
        [0x41, 0x61, 0x00, 0x00],                       // no root pointer, more than 2 bytes
        [0x4F, 0x7F, 0x80, 0x01],                       // string length past the end
        [0x60, 0x05, 0x80, 0x01],                       // array of 5 items in no space
        [0x70, 0x01, 0x30, 0x00, 0x30, 0x00, 0x80, 0x03], // dictionary key that is null
        [0x60, 0x01, 0x80, 0x01, 0x80, 0x02],           // array containing itself
        [0x36, 0x00],                                   // unknown special value
        [0x13, 0x01, 0x80, 0x01],                       // long int past its space
        [0x28, 0x00, 0x00, 0x00, 0x80, 0x02],           // double past its space
    ] as [[UInt8]])
    func malformedDataIsRejected(bytes: [UInt8]) {
        #expect(throws: FleeceError.self) { try FleeceDocument(bytes: bytes) }
    }

    @Test func everyTruncationOfARealDocumentIsRejectedOrReadable() throws {
        let bytes = Array(try Fixtures.data("fleece/1person.fleece"))
        for length in 0..<bytes.count {
            if let document = try? FleeceDocument(bytes: Array(bytes[0..<length])) {
                _ = document.root.json()   // what validates must be fully readable
            }
        }
        #expect(try FleeceDocument(bytes: bytes).root.dictionary?.count == 21)
    }

    @Test func collectionReferencedTwiceIsRejected() throws {
        // 40 levels of arrays whose two items both point to the level below: 2^40 paths.
        var bytes: [UInt8] = [0x41, 0x61]
        var previous = 0
        for _ in 0..<40 {
            let header = bytes.count
            bytes += [0x60, 0x02]
            let first = header + 2
            let back1 = (first - previous) / 2, back2 = (first + 2 - previous) / 2
            bytes += [0x80 | UInt8(back1 >> 8), UInt8(back1 & 0xFF), 0x80 | UInt8(back2 >> 8), UInt8(back2 & 0xFF)]
            previous = header
        }
        let back = (bytes.count - previous) / 2
        bytes += [0x80 | UInt8(back >> 8), UInt8(back & 0xFF)]
        #expect(throws: FleeceError.self) { try FleeceDocument(bytes: bytes) }
    }

    @Test func trustedDataSkipsValidationButReadsTheSame() throws {
        let bytes = try JSONConverter.fleece(fromJSON: #"{"a":[1,"two",3.5]}"#)
        let trusted = try FleeceDocument(bytes: bytes, trusted: true)
        #expect(trusted.root.json() == #"{"a":[1,"two",3.5]}"#)
    }

    @Test func viewsOutliveTheirDocumentReference() throws {
        var value: FleeceValue?
        do {
            let document = try FleeceDocument(json: #"{"name":"kept alive"}"#)
            value = document.root.dictionary?["name"]
        }
        #expect(value?.string == "kept alive")
    }

    @Test func viewsCanCrossTasks() async throws {
        let root = try FleeceDocument(json: #"[1,2,3]"#).root
        let sum = await Task.detached { root.array?.reduce(0) { $0 + $1.int64 } }.value
        #expect(sum == 6)
    }
}
