import PropertyBased
import Testing
import TestSupport
@testable import Fleece

/// ``FleeceLentValue`` (a scan's reader of lent bytes, no document object) must read every value
/// as ``FleeceValue`` does: same type, numbers, booleans and string bytes, and the same entry for
/// every key lookup (shared keys, keys the table leaves as strings, missing keys) and array index
/// (negative from the end, out of range), over generated documents.
@Suite(.ownThreads) struct LentValuePropertyTests {
    private static let keys = ["name", "type", "a", "b", "Z", "zz", "geo", "lat", "country", "collection",
                               "aVeryLongKeyNameOverSixteen", "with space", "é", "k-1", "", "10"]
    private static let scalars = ["\"\"", "\"x\"", "\"hotels\"", "\"France\"", "\"a longer string kept out of line\"",
                                  "\"東京\"", "0", "-1", "1", "2047", "2048", "-2049", "4294967296",
                                  "18446744073709551615", "9223372036854775807", "-9223372036854775808", "1.5",
                                  "-0.0", "0.1", "1e300", "3.4028234663852886e38", "true", "false", "null"]

    /// A deterministic JSON object from a list of choices.
    private struct Builder {
        var choices: ChoiceSequence

        init(choices: [Int]) {
            self.choices = ChoiceSequence(choices)
        }

        mutating func next(_ bound: Int) -> Int { choices.next(bound) }

        mutating func value(depth: Int) -> String {
            switch next(depth > 2 ? 3 : 5) {
            case 0, 1, 2: return scalars[next(scalars.count)]
            case 3: return "[" + (0..<next(5)).map { _ in value(depth: depth + 1) }.joined(separator: ",") + "]"
            default: return object(depth: depth + 1)
            }
        }

        mutating func object(depth: Int) -> String {
            let entries = (0..<next(9)).map { _ in "\"\(keys[next(keys.count)])\":\(value(depth: depth))" }
            return "{" + entries.joined(separator: ",") + "}"
        }
    }

    /// Both readers agree on `value`, and on everything reachable from it.
    private static func check(_ value: FleeceValue, _ lent: FleeceLentValue, _ table: FleeceKeyTable, _ json: String) {
        #expect(lent.type == value.type, "\(json)")
        #expect(lent.isInteger == value.isInteger && lent.isUnsigned == value.isUnsigned, "\(json)")
        #expect(lent.isUndefined == value.isUndefined, "\(json)")
        #expect(lent.int64 == value.int64 && lent.uint64 == value.uint64 && lent.bool == value.bool, "\(json)")
        #expect(lent.double.bitPattern == value.double.bitPattern, "\(json)")
        #expect(lent.withPayload { Array($0) } == value.withPayload { Array($0) }, "\(json)")
        if let dictionary = value.dictionary {
            for key in keys + ["missing", "nameX"] {
                let resolved = table.resolve(key)
                let expected = dictionary[key]
                let found = lent.value(for: resolved)
                #expect((found == nil) == (expected == nil), "\(key) in \(json)")
                if let expected, let found { check(expected, found, table, json) }
            }
        } else {
            #expect(lent.value(for: table.resolve("a")) == nil, "\(json)")
        }
        if let array = value.array {
            for index in -array.count - 1...array.count {
                let expected = array[index < 0 ? array.count + index : index]
                let found = lent.element(at: index)
                #expect((found == nil) == (expected == nil), "[\(index)] in \(json)")
                if let expected, let found { check(expected, found, table, json) }
            }
        } else {
            #expect(lent.element(at: 0) == nil, "\(json)")
        }
    }

    @Test func lentReadsEqualDocumentReads() async {
        let documents = Gen.int(in: 0...10_000).array(of: 1...40).array(of: 1...6)
        await propertyCheck(count: 200, input: documents) { picks in
            let sharedKeys = SharedKeys()
            for choices in picks {
                var builder = Builder(choices: choices)
                let json = builder.object(depth: 0)
                let bytes = try JSONConverter.fleece(fromJSON: json, sharedKeys: sharedKeys)
                let document = try FleeceDocument(bytes: bytes, sharedKeys: sharedKeys)
                let table = FleeceKeyTable(sharedKeys)
                try bytes.withUnsafeBytes { buffer in
                    Self.check(document.root, try FleeceLentValue(rootOf: buffer), table, json)
                }
            }
        }
    }
}
