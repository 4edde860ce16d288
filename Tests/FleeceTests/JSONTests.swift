import Foundation
import Testing
import TestSupport
@testable import Fleece

/// JSON ⇄ Fleece: escapes, float text, canonical output, JSON5 input, errors.
@Suite(.ownThreads) struct JSONTests {
    static func roundTrip(_ json: String, json5: Bool = false, canonical: Bool = false) throws -> String {
        try FleeceDocument(bytes: JSONConverter.fleece(fromJSON: json, json5: json5)).root.json(canonical: canonical)
    }

    @Test func controlCharactersAreEscapedLikeLiteCore() throws {
        #expect(try Self.roundTrip(#"["a\"b\\c\r\n\t\u0001\u007f/é"]"#) == #"["a\"b\\c\r\n\t\u0001\u007f/é"]"#)
    }

    @Test(arguments: [
        ("[1.0]", "[1.0]"), ("[0.1]", "[0.1]"), ("[-0.0]", "[-0.0]"),
        ("[3.141592653589793]", "[3.141592653589793]"), ("[1.25e-05]", "[1.25e-05]"),
        ("[1.25e17]", "[1.25e+17]"), ("[16777216.0]", "[16777216.0]"), ("[307.8]", "[307.8]"),
        ("[40.941286]", "[40.941286]"),
    ])
    func floatsPrintInShortestRoundTripForm(json: String, expected: String) throws {
        #expect(try Self.roundTrip(json) == expected)
    }

    @Test func float32ValuePrintsWithFloatDigits() throws {
        let bytes = try encode { $0.beginArray(); $0.writeFloat(307.79998779296875); $0.writeDouble(307.79998779296875); $0.endArray() }
        #expect(try FleeceDocument(bytes: bytes).root.json() == "[307.8,307.8]")
    }

    @Test func integersKeepTheirSignedness() throws {
        #expect(try Self.roundTrip("[0,-1,2047,2048,-2049,18446744073709551615,-9223372036854775808]")
            == "[0,-1,2047,2048,-2049,18446744073709551615,-9223372036854775808]")
    }

    @Test func storedOrderIsByteOrderOfKeys() throws {
        #expect(try Self.roundTrip(#"{"b":1,"a":2,"B":3,"aa":4}"#) == #"{"B":3,"a":2,"aa":4,"b":1}"#)
    }

    @Test func canonicalOutputSortsSharedKeysByString() throws {
        let keys = SharedKeys()
        let bytes = try JSONConverter.fleece(fromJSON: #"{"zeta":1,"has.dot":2,"alpha":3}"#, sharedKeys: keys)
        let root = try FleeceDocument(bytes: bytes, sharedKeys: keys).root
        #expect(root.json() == #"{"zeta":1,"alpha":3,"has.dot":2}"#)
        #expect(root.json(canonical: true) == #"{"alpha":3,"has.dot":2,"zeta":1}"#)
    }

    @Test func json5InputIsAccepted() throws {
        let json5 = """
        // a comment
        {unquoted: 'single', "trailing": [1, 2,], /* block */ $id: +5, half: .5,}
        """
        #expect(try Self.roundTrip(json5, json5: true) == #"{"$id":5,"half":0.5,"trailing":[1,2],"unquoted":"single"}"#)
    }

    @Test(arguments: ["", "[1,]", "{\"a\" 1}", "[01]", "[1.]", "tru", "[\"\u{1}\"]", "[1] 2", "{a:1}", "['x']", "[1e400]"])
    func invalidJSONIsAnError(json: String) {
        #expect(throws: FleeceError.self) { try JSONConverter.fleece(fromJSON: json) }
    }

    @Test func invalidUTF8IsAnError() {
        let bytes: [UInt8] = Array("[\"".utf8) + [0xC3, 0x28] + Array("\"]".utf8)
        #expect(throws: FleeceError.self) { try bytes.withUnsafeBytes { try JSONConverter.fleece(fromJSONBytes: $0) } }
    }

    @Test func nestingDeeperThan48LevelsIsRejected() throws {
        let ok = String(repeating: "[", count: 48) + String(repeating: "]", count: 48)
        let tooDeep = String(repeating: "[", count: 49) + String(repeating: "]", count: 49)
        _ = try JSONConverter.fleece(fromJSON: ok)
        #expect(throws: FleeceError.self) { try JSONConverter.fleece(fromJSON: tooDeep) }
    }

    @Test func errorNamesTheOffset() {
        do {
            _ = try JSONConverter.fleece(fromJSON: #"{"a":[1,2,}"#)
            Issue.record("expected an error")
        } catch let error as FleeceError {
            #expect(error.offset == 10)
            #expect(error.description.contains("at byte 10"))
        } catch {
            Issue.record("unexpected \(error)")
        }
    }

    @Test func topLevelScalarsConvert() throws {
        #expect(try Self.roundTrip(#""hi""#) == #""hi""#)
        #expect(try Self.roundTrip("null") == "null")
    }
}

/// Key paths evaluated on Fleece values.
@Suite(.ownThreads) struct FleecePathTests {
    static func root() throws -> FleeceValue {
        try FleeceDocument(json: #"{"a":{"b":[10,20,{"c":"deep"}]},"x.y":1,"$z":2,"[w]":3}"#).root
    }

    @Test(arguments: [
        ("a.b[0]", "10"), ("a.b[-1].c", "\"deep\""), ("$.a.b[1]", "20"), ("$a.b[1]", "20"),
        ("x\\.y", "1"), ("\\$z", "2"), ("\\[w]", "3"), ("a.b[-3]", "10"),
    ])
    func pathFindsItsValue(path: String, expected: String) throws {
        #expect(try FleecePath(path).evaluate(on: Self.root())?.json() == expected)
    }

    @Test(arguments: ["a.b[3]", "a.b[-4]", "a.c", "a[0]", "a.b.c"])
    func missingPathGivesNil(path: String) throws {
        #expect(try FleecePath(path).evaluate(on: Self.root()) == nil)
    }

    @Test(arguments: ["a..b", "a[", "a[x]", "a[1]b", "a.", "a\\"])
    func malformedPathIsAnError(path: String) {
        #expect(throws: FleeceError.self) { try FleecePath(path) }
    }

    @Test func pathDescriptionRoundTrips() throws {
        let path = try FleecePath("a\\.b[2][-1].c")
        #expect(path.components == [.key("a.b"), .index(2), .index(-1), .key("c")])
        #expect(try FleecePath(path.description) == path)
    }
}
