import Foundation
import Testing
import TestSupport
@testable import Fleece

/// Encoder layout rules beyond the vectors: widths, long counts, de-duplication distance, errors.
@Suite(.ownThreads) struct EncoderLayoutTests {
    @Test func pointerFurtherThan0x7FFEBackMakesTheCollectionWide() throws {
        let long = String(repeating: "x", count: 40_000)
        let bytes = try encode { $0.beginArray(); $0.writeString(long); $0.writeInt(1); $0.endArray() }
        #expect(bytes.count == 40_016)
        #expect(Array(bytes[0..<4]) == [0x4F, 0xC0, 0xB8, 0x02])
        #expect(hexGroups(Array(bytes[40_004...])) == "6802 8000 4E23 0001 0000 8005")
        #expect(try FleeceDocument(bytes: bytes).root.array?[0]?.string == long)
    }

    /// Couchbase Lite 2.8's encoder (Fleece `Encoder::writeInt`, `placeValue<false>`) writes a
    /// new long integer out of line whatever its size, so the array stays narrow.
    @Test func aNewLongIntegerIsWrittenOutOfLine() throws {
        let bytes = try encode { $0.beginArray(); $0.writeInt(2048); $0.endArray() }
        #expect(hexGroups(bytes) == "1100 0800 6001 8003 8002")
        #expect(try FleeceDocument(bytes: bytes).root.array?[0]?.int64 == 2048)
    }

    /// Copying an existing value (`Encoder::writeValue`, `placeValue<true>`) puts a long int of
    /// at most 4 bytes inline, which makes the collection wide: both layouts occur in files
    /// Couchbase Lite 2.8 writes.
    @Test func aCopiedIntegerOfUpToFourBytesGoesInline() throws {
        let original = try encode { $0.beginArray(); $0.writeInt(2048); $0.endArray() }
        let encoder = FleeceEncoder()
        encoder.writeValue(try FleeceDocument(bytes: original).root)
        let copy = try encoder.finish()
        #expect(hexGroups(copy) == "6801 1100 0800 8003")
        #expect(try FleeceDocument(bytes: copy).root.array?[0]?.int64 == 2048)
    }

    @Test func countOf2047SpillsIntoAVarint() throws {
        let bytes = try encode { encoder in
            encoder.beginArray()
            for index in 0..<2047 { encoder.writeInt(Int64(index)) }
            encoder.endArray()
        }
        #expect(Array(bytes[0..<4]) == [0x67, 0xFF, 0x00, 0x00])
        let array = try #require(try FleeceDocument(bytes: bytes).root.array)
        #expect(array.count == 2047)
        #expect(array[2046]?.int64 == 2046)
    }

    @Test func repeatedShortStringsPointToTheFirstCopy() throws {
        let bytes = try encode { $0.beginArray(); for _ in 0..<2 { $0.writeString("a"); $0.writeString("hello") }; $0.endArray() }
        #expect(hexGroups(bytes) == "4568 656C 6C6F 6004 4161 8005 4161 8007 8005")
    }

    @Test func stringsOf16BytesOrMoreAreNotShared() throws {
        let bytes = try encode { $0.beginArray(); $0.writeString("sixteen bytes!!!"); $0.writeString("sixteen bytes!!!"); $0.endArray() }
        #expect(bytes.count == 2 * 18 + 2 + 4 + 2)
    }

    @Test func distantRepeatIsWrittenAgain() throws {
        let filler = String(repeating: "f", count: 0x7FFE)
        let bytes = try encode { $0.beginArray(); $0.writeString("hello"); $0.writeString(filler); $0.writeString("hello"); $0.endArray() }
        let copies = bytes.indices.dropLast(5).filter { Array(bytes[$0..<($0 + 5)]) == Array("hello".utf8) }
        #expect(copies.count == 2)
    }

    @Test func integerKeysSortBeforeStringKeys() throws {
        let keys = SharedKeys()
        let bytes = try encode(sharedKeys: keys) { encoder in
            encoder.beginDictionary()
            encoder.writeKey("has space"); encoder.writeInt(1)
            encoder.writeKey("b"); encoder.writeInt(2)
            encoder.writeKey("a"); encoder.writeInt(3)
            encoder.endDictionary()
        }
        #expect(keys.keys == ["b", "a"])
        #expect(try FleeceDocument(bytes: bytes, sharedKeys: keys).root.json() == #"{"b":2,"a":3,"has space":1}"#)
    }

    @Test(arguments: [
        "value without key", "key in array", "end array in dict", "unclosed", "two roots", "nothing", "NaN", "key without value",
    ])
    func misuseIsReportedByFinish(_ misuse: String) {
        let encoder = FleeceEncoder()
        switch misuse {
        case "value without key": encoder.beginDictionary(); encoder.writeInt(1); encoder.endDictionary()
        case "key in array": encoder.beginArray(); encoder.writeKey("k"); encoder.endArray()
        case "end array in dict": encoder.beginDictionary(); encoder.endArray()
        case "unclosed": encoder.beginArray()
        case "two roots": encoder.writeInt(1); encoder.writeInt(2)
        case "NaN": encoder.writeDouble(.nan)
        case "key without value": encoder.beginDictionary(); encoder.writeKey("k"); encoder.endDictionary()
        default: break
        }
        #expect(throws: FleeceError.self) { try encoder.finish() }
    }

    @Test func encoderIsReusableAfterFinish() throws {
        let encoder = FleeceEncoder()
        encoder.writeString("first value")
        _ = try encoder.finish()
        encoder.beginArray(); encoder.writeString("a"); encoder.writeString("hello"); encoder.endArray()
        #expect(hexGroups(try encoder.finish()) == "4568 656C 6C6F 6002 4161 8005 8003")
    }

    @Test func copiedValueKeepsItsBytes() throws {
        // (Long ints of 3–4 bytes would move inline on copy; see the test above.)
        let original = try JSONConverter.fleece(fromJSON: #"{"a":[1,2047,-7000000000,2.5,1e300,"text",true,null],"b":{"c":"hello"}}"#)
        let encoder = FleeceEncoder()
        encoder.writeValue(try FleeceDocument(bytes: original).root)
        #expect(try encoder.finish() == original)
    }

    @Test func copiedValueReencodesKeysForAnotherTable() throws {
        let source = SharedKeys()
        let bytes = try JSONConverter.fleece(fromJSON: #"{"name":"x","list":[{"name":"y"}]}"#, sharedKeys: source)
        let target = SharedKeys(keys: ["other"])
        let encoder = FleeceEncoder(sharedKeys: target)
        encoder.writeValue(try FleeceDocument(bytes: bytes, sharedKeys: source).root)
        let copy = try FleeceDocument(bytes: encoder.finish(), sharedKeys: target)
        #expect(copy.root.json(canonical: true) == #"{"list":[{"name":"y"}],"name":"x"}"#)
        #expect(target.keys == ["other", "name", "list"])
    }
}
