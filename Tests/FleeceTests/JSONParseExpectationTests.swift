import Foundation
import Testing
import TestSupport
@testable import Fleece

/// The `json_parse_expectations` of `encoder-vectors.json`, and LiteCore 2.8's number rules.
@Suite(.ownThreads) struct JSONParseExpectationTests {
    static func parse(_ json: String) throws -> FleeceValue {
        try FleeceDocument(bytes: JSONConverter.fleece(fromJSON: json)).root
    }

    @Test(arguments: [
        (#""H\u0061ppy""#, "Happy"),
        (#""Price 50\u00A2""#, "Price 50\u{A2}"),
        (#""Price \u20ac250""#, "Price \u{20AC}250"),
        (#""!\u0000!""#, "!\u{0}!"),
        (#""lmao\uD83D\uDE1C!""#, "lmao\u{1F61C}!"),
    ])
    func escapedStringDecodes(json: String, expected: String) throws {
        let value = try Self.parse("[\(json)]").array?[0]
        #expect(value?.string == expected)
    }

    @Test(arguments: [#""lmao\uD83D""#, #""lmao\uDE1C\uD83D!""#, #""Price \u20a""#])
    func invalidEscapeIsAnError(json: String) {
        #expect(throws: FleeceError.self) { try Self.parse("[\(json)]") }
    }

    @Test func int64MaxIsASignedInteger() throws {
        let value = try Self.parse("[9223372036854775807]").array?[0]
        #expect(value?.isInteger == true)
        #expect(value?.int64 == .max)
    }

    @Test func int64MinIsASignedInteger() throws {
        let value = try Self.parse("[-9223372036854775808]").array?[0]
        #expect(value?.isInteger == true && value?.isUnsigned == false)
        #expect(value?.int64 == .min)
    }

    @Test func uint64MaxIsUnsigned() throws {
        let value = try Self.parse("[18446744073709551615]").array?[0]
        #expect(value?.isUnsigned == true)
        #expect(value?.uint64 == .max)
    }

    @Test func integersBeyond64BitsBecomeDoubles() throws {
        let array = try #require(try Self.parse("[18446744073709551616,602214076000000000000000,-9999999999999999999]").array)
        #expect(array.allSatisfy { $0.isFloatingPoint })
        #expect(array[0]?.double == 18446744073709551616.0)
        #expect(array[1]?.double == 6.02214076e23)
        #expect(array[2]?.double == -9999999999999999999.0)
    }

    @Test func integerBeyond64BitsIsWrittenAsExactFloat32() throws {
        let bytes = try JSONConverter.fleece(fromJSON: "18446744073709551616")
        #expect(hexGroups(bytes) == "2000 0000 805F 8003")
    }

    @Test func nonNegativeIntegerFrom2048IsUnsigned() throws {
        let bytes = try JSONConverter.fleece(fromJSON: "2048")
        #expect(hexGroups(bytes) == "1900 0800 8002")
    }

    @Test func binaryDataPrintsAsBase64() throws {
        let bytes = try encode { encoder in
            encoder.beginArray()
            encoder.writeData(Array("not-really-binary".utf8))
            encoder.endArray()
        }
        #expect(try FleeceDocument(bytes: bytes).root.json() == #"["bm90LXJlYWxseS1iaW5hcnk="]"#)
    }
}
