import Foundation
import Testing
import TestSupport
@testable import Fleece

/// Every vector of `encoder-vectors.json` (Couchbase Lite 2.8 target) produces its exact bytes.
@Suite(.ownThreads) struct EncoderVectorTests {
    /// The encoder calls each vector's `op` text stands for.
    static let operations: [String: @Sendable (FleeceEncoder) -> Void] = [
        "writeNull()": { $0.writeNull() },
        "writeBool(false)": { $0.writeBool(false) },
        "writeInt(0)": { $0.writeInt(0) },
        "writeInt(128)": { $0.writeInt(128) },
        "writeInt(-1234)": { $0.writeInt(-1234) },
        "writeInt(2047)": { $0.writeInt(2047) },
        "writeInt(2048)": { $0.writeInt(2048) },
        "writeInt(-2049)": { $0.writeInt(-2049) },
        "writeInt(-12345678)": { $0.writeInt(-12_345_678) },
        "writeInt(0x223344)": { $0.writeInt(0x223344) },
        "writeInt(0x11223344556677)": { $0.writeInt(0x11_2233_4455_6677) },
        "writeInt(0x1122334455667788)": { $0.writeInt(0x1122_3344_5566_7788) },
        "writeUInt(0xCCBBAA9988776655)": { $0.writeUInt(0xCCBB_AA99_8877_6655) },
        "writeUInt(UINT64_MAX)": { $0.writeUInt(.max) },
        "writeFloat(-0.5)": { $0.writeFloat(-0.5) },
        "writeFloat((float)M_PI)": { $0.writeFloat(Float(Double.pi)) },  // Float.pi rounds down; C rounds to nearest
        "writeFloat(0.0)": { $0.writeFloat(0.0) },
        "writeFloat(-2048.0)": { $0.writeFloat(-2048.0) },
        "writeDouble(0.0)": { $0.writeDouble(0.0) },
        "writeDouble(-2048.0)": { $0.writeDouble(-2048.0) },
        "writeDouble(0.5)": { $0.writeDouble(0.5) },
        "writeDouble(-0.5)": { $0.writeDouble(-0.5) },
        "writeFloat(307.79998779296875)": { $0.writeFloat(307.79998779296875) },
        "writeDouble(307.79998779296875)": { $0.writeDouble(307.79998779296875) },
        "writeString(\"\")": { $0.writeString("") },
        "writeString(\"a\")": { $0.writeString("a") },
        "writeString(\"abcdefghijklmn\")": { $0.writeString("abcdefghijklmn") },
        "writeString(\"abcdefghijklmno\")": { $0.writeString("abcdefghijklmno") },
        "writeString(\"müßchop\")": { $0.writeString("müßchop") },
        "empty array []": { $0.beginArray(); $0.endArray() },
        "[\"a\",\"hello\"]": { $0.beginArray(); $0.writeString("a"); $0.writeString("hello"); $0.endArray() },
        "empty dict {}": { $0.beginDictionary(); $0.endDictionary() },
        "{\"o-o\":42}": { $0.beginDictionary(); $0.writeKey("o-o"); $0.writeInt(42); $0.endDictionary() },
    ]

    struct Vector: Sendable, CustomTestStringConvertible {
        let op: String
        let hex: String
        var testDescription: String { op }
    }

    static func vectors() throws -> [Vector] {
        let object = try JSONSerialization.jsonObject(with: Fixtures.data("fleece/encoder-vectors.json")) as? [String: Any]
        let list = object?["vectors"] as? [[String: Any]] ?? []
        return list.compactMap { entry in
            guard let op = entry["op"] as? String, let hex = entry["hex"] as? String else { return nil }
            return Vector(op: op, hex: hex)
        }
    }

    @Test func everyVectorHasAnOperation() throws {
        let vectors = try Self.vectors()
        #expect(vectors.count >= 35)
        let special = ["{0:23, 1:42, 2047:-1} with integer (shared) keys"]
        for vector in vectors where !special.contains(vector.op) && !vector.op.contains("SharedKeys") && !vector.op.contains("_attachments") {
            #expect(Self.operations[vector.op] != nil, "no encoder calls for vector \(vector.op)")
        }
    }

    @Test(arguments: try vectors().filter { operations[$0.op] != nil })
    func vectorEncodesToItsBytes(_ vector: Vector) throws {
        let operation = try #require(Self.operations[vector.op])
        let bytes = try encode(operation)
        #expect(bytes == Fleece_bytes(vector.hex), "\(vector.op): got \(hexGroups(bytes)), want \(vector.hex)")
    }

    @Test func numericSharedKeysVector() throws {
        let keys = SharedKeys()
        let bytes = try encode(sharedKeys: keys) { encoder in
            encoder.beginDictionary()
            encoder.writeKey(sharedIndex: 0); encoder.writeInt(23)
            encoder.writeKey(sharedIndex: 1); encoder.writeInt(42)
            encoder.writeKey(sharedIndex: 2047); encoder.writeInt(-1)
            encoder.endDictionary()
        }
        #expect(hexGroups(bytes) == "7003 0000 0017 0001 002A 07FF 0FFF 8007")
    }

    @Test func sharedKeysEncodingVector() throws {
        let keys = SharedKeys()
        let bytes = try encode(sharedKeys: keys) { encoder in
            encoder.beginDictionary()
            encoder.writeKey("type"); encoder.writeString("animal")
            encoder.writeKey("mass"); encoder.writeDouble(123.456)
            encoder.writeKey("_attachments")
            encoder.beginDictionary()
            encoder.writeKey("thumbnail.jpg"); encoder.writeData(Array("xxxxxx".utf8))
            encoder.writeKey("type"); encoder.writeBool(true)
            encoder.endDictionary()
            encoder.endDictionary()
        }
        let expected = "4661 6e69 6d61 6c00 2800 77be 9f1a 2fdd 5e40 4d74 6875 6d62 6e61 696c 2e6a 7067 5678 7878 7878 7800 7002 0000 3800 800e 8008 7003 0000 801b 0001 8019 0002 800b 8007"
        #expect(hexGroups(bytes) == expected.uppercased())
        #expect(keys.keys == ["type", "mass", "_attachments"])
    }
}

func Fleece_bytes(_ hex: String) -> [UInt8] { bytes(fromHex: hex) }
