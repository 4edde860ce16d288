import Foundation
import Testing
import TestSupport
@testable import BLIP

/// The byte-exact vectors in blip-vectors.json (go-blip's tests; Sync Gateway's BLIP).
@Suite(.ownThreads) struct VectorTests {
    static func vectors() throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Fixtures.data("blip/blip-vectors.json")) as? [String: Any])
    }

    /// go-blip writes properties sorted by key.
    static func sortedProperties(_ object: Any?) -> BLIPProperties {
        var properties = BLIPProperties()
        for (key, value) in ((object as? [String: String]) ?? [:]).sorted(by: { $0.key < $1.key }) {
            properties[key] = value
        }
        return properties
    }

    @Test func messageEncodingMatches() throws {
        let cases = try #require(try Self.vectors()["message_encoding"] as? [[String: Any]])
        #expect(cases.count == 1)
        for vector in cases {
            let message = BLIPMessage(properties: Self.sortedProperties(vector["properties"]),
                                      body: Array((vector["body"] as? String ?? "").utf8))
            let encoded = TestBytes.goEscaped(try #require(vector["encoded"] as? String))
            #expect(try message.encodedPayload() == encoded)
            let decoded = try BLIPMessage(kind: .request, number: 1, flags: [], payload: encoded)
            #expect(decoded.properties == message.properties && decoded.body == message.body)
        }
    }

    @Test func propertiesEncodingMatches() throws {
        let cases = try #require(try Self.vectors()["properties_encoding"] as? [[String: Any]])
        #expect(cases.count == 2)
        for vector in cases {
            let properties = Self.sortedProperties(vector["properties"])
            let encoded = TestBytes.goEscaped(try #require(vector["encoded"] as? String))
            #expect(try properties.encoded() == encoded)
            let decoded = try BLIPProperties.decode(from: encoded)
            #expect(decoded.properties == properties && decoded.length == encoded.count)
        }
    }

    @Test func badPropertiesAreRejectedAsGoBLIPDoes() throws {
        let cases = try #require(
            try Self.vectors()["properties_decoding_errors (TestReadBadProperties)"] as? [[String]])
        #expect(cases.count == 8)
        for vector in cases {
            let input = TestBytes.goEscaped(vector[0])
            let expectation = vector[1]
            if expectation.hasPrefix("(ok") {
                let decoded = try BLIPProperties.decode(from: input)
                #expect(decoded.length == input.count)
                if input.count > 1 {
                    #expect(decoded.properties == ["X": "Y", "Foo": "Bar"])
                } else {
                    #expect(decoded.properties.isEmpty)
                }
                continue
            }
            let expectedWords = switch expectation {
            case _ where expectation.hasSuffix("EOF"): "truncated"
            case _ where expectation.hasPrefix("Duplicate"): "duplicate property name \"Foo\""
            case _ where expectation.contains("NUL-terminated"): "not NUL-terminated"
            default: "odd number of strings"
            }
            do {
                _ = try BLIPProperties.decode(from: input)
                Issue.record("\(vector[0]) should fail with \(expectation)")
            } catch let error as BLIPError {
                guard case let .protocolViolation(detail) = error else {
                    Issue.record("\(vector[0]): \(error)")
                    continue
                }
                #expect(detail.contains(expectedWords), "\(vector[0]): \(detail) vs \(expectation)")
            }
        }
    }

    @Test func propertiesWithInvalidUTF8OrTooLargeAreRejected() {
        #expect(throws: BLIPError.protocolViolation("a property string is not valid UTF-8")) {
            try BLIPProperties.decode(from: [4, 0xFF, 0, 0x41, 0])
        }
        var huge: [UInt8] = []
        BLIPVarint.append(UInt64(BLIPProperties.maxEncodedSize + 1), to: &huge)
        #expect(throws: BLIPError.self) { try BLIPProperties.decode(from: huge) }
        let tooLarge: BLIPProperties = ["k": String(repeating: "v", count: BLIPProperties.maxEncodedSize)]
        #expect(throws: BLIPError.self) { try tooLarge.encoded() }
        let withNUL: BLIPProperties = ["k": "a\u{0}b"]
        #expect(throws: BLIPError.invalidMessage("property \"k\" contains a NUL byte")) { try withNUL.encoded() }
    }
}
