import Foundation
import Testing
import TestSupport
@testable import Fleece

/// Mutable dictionaries and arrays built from scratch or from read values.
@Suite(.ownThreads) struct MutableTests {
    static func encoded(_ dict: MutableDict, sharedKeys: SharedKeys? = nil) throws -> [UInt8] {
        let encoder = FleeceEncoder(sharedKeys: sharedKeys)
        dict.encode(to: encoder)
        return try encoder.finish()
    }

    @Test func editedDocumentEncodesTheChanges() throws {
        let source = try FleeceDocument(json: #"{"name":"Ann","age":30,"tags":["a"],"address":{"city":"Oslo"}}"#)
        let dict = MutableDict(try #require(source.root.dictionary))
        dict["age"] = .int(31)
        dict.removeValue(forKey: "name")
        dict.mutableArray(forKey: "tags")?.append(.string("b"))
        dict.mutableDictionary(forKey: "address")?["zip"] = .string("0150")
        dict["new"] = .bool(true)
        let json = try FleeceDocument(bytes: Self.encoded(dict)).root.json()
        #expect(json == #"{"address":{"city":"Oslo","zip":"0150"},"age":31,"new":true,"tags":["a","b"]}"#)
        #expect(source.root.json() == #"{"address":{"city":"Oslo"},"age":30,"name":"Ann","tags":["a"]}"#)
    }

    @Test func countAndKeysFollowEdits() throws {
        let dict = MutableDict(try #require(try FleeceDocument(json: #"{"a":1,"b":2}"#).root.dictionary))
        dict["c"] = .null
        dict.removeValue(forKey: "a")
        dict.removeValue(forKey: "missing")
        #expect(dict.count == 2)
        #expect(dict.keys == ["b", "c"])
        #expect(dict["a"] == nil)
        #expect(dict["b"]?.int64 == 2)
    }

    @Test func newDictionaryWritesValuesInKeyOrder() throws {
        let dict = MutableDict()
        dict["b"] = .string("second value")
        dict["a"] = .string("first value")
        let sorted = try JSONConverter.fleece(fromJSON: #"{"a":"first value","b":"second value"}"#)
        let unsorted = try JSONConverter.fleece(fromJSON: #"{"b":"second value","a":"first value"}"#)
        #expect(try Self.encoded(dict) == sorted)
        #expect(sorted != unsorted)
    }

    @Test func sharedKeysOfTheSourceSortFirst() throws {
        let keys = SharedKeys(keys: ["zeta", "alpha"])
        let bytes = try JSONConverter.fleece(fromJSON: #"{"zeta":"zzzz","alpha":"aaaa","has.dot":"dddd"}"#, sharedKeys: keys)
        let dict = MutableDict(try #require(try FleeceDocument(bytes: bytes, sharedKeys: keys).root.dictionary))
        dict["beta"] = .string("bbbb")     // eligible but not yet in the table: ordered as a string
        dict["alpha"] = .string("AAAA")
        #expect(dict.keys == ["zeta", "alpha", "beta", "has.dot"])
        let out = try Self.encoded(dict, sharedKeys: keys)
        #expect(try FleeceDocument(bytes: out, sharedKeys: keys).root.json()
            == #"{"zeta":"zzzz","alpha":"AAAA","beta":"bbbb","has.dot":"dddd"}"#)
    }

    @Test func unchangedDictionaryReencodesToTheSameBytes() throws {
        let bytes = try JSONConverter.fleece(fromJSON: #"{"a":"first value","b":[1,2.5,"three"],"c":{"d":null}}"#)
        let dict = MutableDict(try #require(try FleeceDocument(bytes: bytes).root.dictionary))
        #expect(try Self.encoded(dict) == bytes)
    }

    @Test func nanInAMutableDictionaryIsAnEncodingError() {
        let dict = MutableDict()
        dict["bad"] = .double(.nan)
        #expect(throws: FleeceError.self) { try dict.encoded() }
    }

    @Test func copyIsIndependentOfTheOriginal() throws {
        let dict = MutableDict(try #require(try FleeceDocument(json: #"{"a":{"b":1},"list":[1]}"#).root.dictionary))
        dict.mutableDictionary(forKey: "a")?["c"] = .int(2)
        let copy = dict.copy()
        copy.mutableDictionary(forKey: "a")?["b"] = .string("changed")
        copy.mutableArray(forKey: "list")?.append(.int(2))
        #expect(try FleeceDocument(bytes: dict.encoded()).root.json() == #"{"a":{"b":1,"c":2},"list":[1]}"#)
        #expect(try FleeceDocument(bytes: copy.encoded()).root.json() == #"{"a":{"b":"changed","c":2},"list":[1,2]}"#)
    }

    @Test func arrayEditsApply() throws {
        let array = MutableArray(try #require(try FleeceDocument(json: "[1,2,3]").root.array))
        array.insert(.int(0), at: 0)
        array.remove(at: 3)
        array.set(.string("two"), at: 2)
        #expect(!array.insert(.null, at: 9))
        array.append(.dictionary(MutableDict()))
        let encoder = FleeceEncoder()
        array.encode(to: encoder)
        #expect(try FleeceDocument(bytes: encoder.finish()).root.json() == #"[0,1,"two",{}]"#)
    }
}
