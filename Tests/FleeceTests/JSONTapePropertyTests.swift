import PropertyBased
import Testing
import TestSupport
@testable import Fleece

/// The importer's one-pass encoding (``JSONTape``) must give exactly the bytes and shared keys of
/// what Couchbase Lite 2.8's `cblite cp` does: encode the JSON object whole, then write a copy of
/// it without `_id`. Checked over generated documents that stress the ordering: keys out of
/// order, repeated keys, keys too long or unfit for the shared-key table, nested collections,
/// repeated strings, escapes, and numbers of every kind.
@Suite(.ownThreads) struct JSONTapePropertyTests {
    private static let keys = ["_id", "name", "type", "a", "b", "Z", "zz", "geo", "lat", "lon", "aVeryLongKeyNameOverSixteen",
                               "with space", "é", "k-1", "_", "", "10", "id"]
    private static let strings = ["", "x", "hotel", "Hotel", "route_1", "caf\\u00e9", "tab\\tand\\\"quote\\\"", "東京",
                                  "a longer string that is kept out of line", "hotel"]
    private static let numbers = ["0", "-1", "1", "127", "2048", "-2049", "4294967296", "18446744073709551615",
                                  "9223372036854775807", "-9223372036854775808", "1.5", "2.0", "-0.0", "0.1",
                                  "1e300", "3.4028234663852886e38", "1e-7", "123456789012345678901234567890"]

    /// A deterministic JSON text from a list of choices (each choice picks the next step).
    private struct Builder {
        var choices: ChoiceSequence

        init(choices: [Int]) {
            self.choices = ChoiceSequence(choices)
        }

        mutating func next(_ bound: Int) -> Int { choices.next(bound) }

        mutating func value(depth: Int) -> String {
            switch next(depth > 3 ? 4 : 6) {
            case 0: return "\"" + strings[next(strings.count)] + "\""
            case 1: return numbers[next(numbers.count)]
            case 2: return ["true", "false", "null"][next(3)]
            case 3: return "\"" + strings[next(strings.count)] + "\""
            case 4: return "[" + (0..<next(4)).map { _ in value(depth: depth + 1) }.joined(separator: ",") + "]"
            default: return object(depth: depth + 1)
            }
        }

        mutating func object(depth: Int) -> String {
            let entries = (0..<next(7)).map { _ in "\"\(keys[next(keys.count)])\":\(value(depth: depth))" }
            return "{" + entries.joined(separator: ", ") + "}"
        }
    }

    /// What `cblite cp` does: the whole object, then a copy without `_id`.
    private static func twoEncodings(_ json: String, _ keys: SharedKeys) throws -> [UInt8] {
        let whole = try JSONConverter.fleece(fromJSON: json, sharedKeys: keys)
        let document = try FleeceDocument(bytes: whole, sharedKeys: keys, trusted: true)
        let encoder = FleeceEncoder(sharedKeys: keys)
        encoder.writeDictionary(document.root, omitting: "_id")
        return try encoder.finish()
    }

    private static func tape(_ json: String, _ keys: SharedKeys) throws -> [UInt8] {
        var text = json
        let tape = try text.withUTF8 { try JSONTape.parse(json: UnsafeRawBufferPointer($0)) }
        tape.addKeys(to: keys)
        let encoder = FleeceEncoder(sharedKeys: keys)
        tape.write(to: encoder, omittingTopLevelKey: "_id")
        return try encoder.finish()
    }

    @Test func oneEncodingEqualsTwo() async {
        let documents = Gen.int(in: 0...10_000).array(of: 1...40).array(of: 1...8)
        await propertyCheck(count: 300, input: documents) { picks in
            let first = SharedKeys()
            let second = SharedKeys()
            for choices in picks {
                var builder = Builder(choices: choices)
                let json = builder.object(depth: 0)
                let expected = try Self.twoEncodings(json, first)
                let actual = try Self.tape(json, second)
                #expect(actual == expected, "\(json)")
                #expect(second.keys == first.keys, "\(json)")
            }
        }
    }

    /// `MutableDocument(id:json:)` parses into a tape once and saves by replaying it: the bytes
    /// and the shared keys must be those of parsing the text straight into the encoder, as saves
    /// did before (the stored bytes and so the revision IDs must not change).
    @Test func replayEqualsParsingTheText() async {
        let documents = Gen.int(in: 0...10_000).array(of: 1...40).array(of: 1...8)
        await propertyCheck(count: 300, input: documents) { picks in
            let first = SharedKeys()
            let second = SharedKeys()
            for choices in picks {
                var builder = Builder(choices: choices)
                let json = builder.object(depth: 0)
                let expected = try JSONConverter.fleece(fromJSON: json, sharedKeys: first)
                // The tape keeps the string itself, as `MutableDocument(id:json:)` parses it.
                let tape = try JSONTape.parse(json: json)
                let encoder = FleeceEncoder(sharedKeys: second)
                tape.replay(to: encoder)
                #expect(try encoder.finish() == expected, "\(json)")
                #expect(second.keys == first.keys, "\(json)")
            }
        }
    }

    /// The tape's parse is the only check `MutableDocument(id:json:)` makes now: it must refuse
    /// exactly the texts the validating parser refuses (generated documents, cut or with one byte
    /// changed).
    @Test func tapeRefusesWhatValidationRefuses() async {
        let cases = Gen.int(in: 0...10_000).array(of: 1...40).array(of: 1...6)
        await propertyCheck(count: 300, input: cases) { picks in
            for choices in picks {
                var builder = Builder(choices: choices)
                var bytes = Array(builder.object(depth: 0).utf8)
                let position = abs(choices[0]) % bytes.count
                switch abs(choices.last ?? 0) % 3 {
                case 0: bytes.removeSubrange(position...)
                case 1:
                    let replacements = Array(#"{}[]",:0e-."#.utf8)
                    bytes[position] = replacements[abs(choices[0]) % replacements.count]
                default: bytes.insert(0x01, at: position)
                }
                let validated = (try? bytes.withUnsafeBytes { try JSONConverter.validate(json: $0) }) != nil
                let taped = (try? bytes.withUnsafeBytes { try JSONTape.parse(json: $0) }) != nil
                #expect(validated == taped, "\(String(decoding: bytes, as: UTF8.self))")
            }
        }
    }

    /// A full table (2,048 keys): later keys are strings in both ways.
    @Test func fullSharedKeyTableWritesStringKeys() throws {
        let first = SharedKeys(keys: (0..<2_047).map { "k\($0)" })
        let second = SharedKeys(keys: first.keys)
        let json = #"{"zeta":1,"_id":"x","alpha":{"k5":2,"beta":[1,{"gamma":3}]},"k1":"v"}"#
        #expect(try Self.tape(json, second) == Self.twoEncodings(json, first))
        #expect(second.keys == first.keys)
    }

    @Test func topLevelValueReadsStringsAndNumbers() throws {
        func value(_ json: String, _ key: String = "_id") throws -> (Bool, String?) {
            var text = json
            let tape = try text.withUTF8 { try JSONTape.parse(json: UnsafeRawBufferPointer($0)) }
            let found = tape.topLevelValue(forKey: key)
            return (found.present, found.value)
        }
        #expect(try value(#"{"a":{"_id":"inner"},"_id":"outer"}"#) == (true, "outer"))
        #expect(try value(#"{"_id":12}"#) == (true, "12"))
        #expect(try value(#"{"_id":3.0}"#) == (true, "3"))
        #expect(try value(#"{"_id":true}"#) == (true, nil))
        #expect(try value(#"{"_id":"a","_id":"b"}"#) == (true, "b"))
        #expect(try value(#"{"x":"\u00e9","_id":"a\"b"}"#) == (true, "a\"b"))
        #expect(try JSONTape.parse(json: #"{"_id":"caf\u00e9"}"#).topLevelValue(forKey: "_id").value == "café")
        #expect(try value(#"{"id":"a"}"#) == (false, nil))
        #expect(try value(#"[1,2]"#) == (false, nil))
        #expect(throws: FleeceError.self) { try value(#"{"_id":"a",}"#) }
    }
}
