import Fleece
import Foundation
import PropertyBased
import TestSupport
import Testing
@testable import CouchbaseLiteSwift

/// A changed document's untouched stored values are written straight from their Fleece form
/// (`DocumentEncoder.writesUntouchedValuesDirectly`). The bytes, and so the revision IDs, must be
/// those of the general path that turns every value into a Swift value first: checked over
/// generated documents (every kind of number, strings, nulls, booleans, nested containers,
/// blobs) and generated edits.
@Suite(.ownThreads) struct DocumentEncoderPropertyTests {
    private static let scalars = ["0", "-1", "1", "127", "2048", "-2049", "4294967296", "18446744073709551615",
                                  "9223372036854775807", "-9223372036854775808", "1.5", "2.0", "-0.0", "0.1", "1e300",
                                  "3.4028234663852886e38", "true", "false", "null", #""""#, #""x""#, #""hotel""#,
                                  #""caf\u00e9""#, #""a longer string that is kept out of line""#]
    private static let keys = ["a", "b", "name", "geo", "zz", "Z", "with space", "aVeryLongKeyNameOverSixteen", "é", "_id"]
    private static let blob = #"{"@type":"blob","digest":"sha1-Kq5sNclPz7QV2+lfQIuc6R7oRu0=","length":5,"content_type":"text/plain"}"#

    private struct Builder {
        var choices: ChoiceSequence

        init(choices: [Int]) {
            self.choices = ChoiceSequence(choices)
        }

        mutating func next(_ bound: Int) -> Int { choices.next(bound) }

        mutating func value(depth: Int) -> String {
            switch next(depth > 2 ? 3 : 6) {
            case 0, 1: return scalars[next(scalars.count)]
            case 2: return depth == 0 ? scalars[next(scalars.count)] : DocumentEncoderPropertyTests.blob
            case 3: return "[" + (0..<next(4)).map { _ in value(depth: depth + 1) }.joined(separator: ",") + "]"
            default: return object(depth: depth + 1)
            }
        }

        mutating func object(depth: Int) -> String {
            "{" + (0..<next(7)).map { _ in "\"\(keys[next(keys.count)])\":\(value(depth: depth))" }
                .joined(separator: ",") + "}"
        }
    }

    private static func encode(_ document: Document, in database: Database, directly: Bool) throws -> [UInt8] {
        let encoder = FleeceEncoder(sharedKeys: database.core.sharedKeys)
        var documentEncoder = DocumentEncoder(encoder: encoder, blobStore: nil)
        documentEncoder.writesUntouchedValuesDirectly = directly
        try documentEncoder.encode(document.properties)
        return try encoder.finish()
    }

    @Test(arguments: StorageEngineKind.allCases)
    func directWritesEqualTheGeneralPath(engine: StorageEngineKind) async {
        let cases = Gen.int(in: 0...10_000).array(of: 1...40).array(of: 1...6)
        await propertyCheck(count: 100, input: cases) { picks in
            try withDatabase(engine) { database, _ in
                for (number, choices) in picks.enumerated() {
                    var builder = Builder(choices: choices)
                    let json = builder.object(depth: 0)
                    let id = "doc\(number)"
                    try database.saveDocument(try MutableDocument(id: id, json: json))
                    let edited = try #require(database.document(withID: id)?.toMutable())
                    let keys = edited.keys
                    // Edits: a new key, a replaced or removed stored key, a change inside a
                    // stored container, or none.
                    switch builder.next(5) {
                    case 0: edited.setString("updated", forKey: "bench")
                    case 1: if let key = keys.first { edited.setInt(7, forKey: key) }
                    case 2: if let key = keys.last { edited.removeValue(forKey: key) }
                    case 3:
                        if let key = keys.first(where: { edited.dictionary(forKey: $0) != nil }) {
                            edited.dictionary(forKey: key)?.setBoolean(true, forKey: "changed")
                        } else if let key = keys.first(where: { edited.array(forKey: $0) != nil }) {
                            edited.array(forKey: key)?.addString("added")
                        }
                        edited.setValue(nil, forKey: "n")
                    default: break
                    }
                    let direct = try Self.encode(edited, in: database, directly: true)
                    let general = try Self.encode(edited, in: database, directly: false)
                    #expect(direct == general, "\(json)")
                    // Both paths take their entries from `entriesInByteOrder`: check it on its own.
                    let storage = edited.properties
                    let entries = storage.entriesInByteOrder()
                    #expect(entries.map(\.key) == storage.keys.sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) })
                    let allKeys = storage.keys
                    // (A generated object may repeat a key; a lookup by key finds only one of them.)
                    for entry in entries where allKeys.filter({ $0 == entry.key }).count == 1 {
                        let stored = storage.untouchedStoredValue(forKey: entry.key)
                        #expect((entry.untouchedIndex != nil) == (stored != nil), "\(entry.key) in \(json)")
                        if let index = entry.untouchedIndex, let stored {
                            #expect(storage.source?.entryValues(at: index)?.value.json() == stored.json())
                        }
                    }
                }
            }
        }
    }

    /// A stored number that JSON cannot hold (only a foreign writer could store one) still fails
    /// the save, as the general path makes it, instead of being copied.
    @Test(arguments: StorageEngineKind.allCases)
    func unchangedValuesTheGeneralPathRefusesAreStillRefused(engine: StorageEngineKind) throws {
        try withDatabase(engine) { database, _ in
            for writeStoredValue in [{ (encoder: FleeceEncoder) in encoder.writeDouble(.infinity) },
                                     { (encoder: FleeceEncoder) in encoder.writeData([1, 2, 3]) }] {
                let encoder = FleeceEncoder(sharedKeys: database.core.sharedKeys)
                encoder.beginDictionary()
                encoder.writeKey("stored")
                writeStoredValue(encoder)
                encoder.endDictionary()
                let fleece = try FleeceDocument(bytes: try encoder.finish(), sharedKeys: database.core.sharedKeys)
                let document = MutableDocument(id: "x")
                document.body = fleece
                document.properties = DictionaryStorage(source: fleece.root.dictionary, database: database, isMutable: true)
                document.setString("y", forKey: "new")
                #expect(errorCode { _ = try Self.encode(document, in: database, directly: true) } == .invalidParameter)
            }
        }
    }

    /// Changed dictionaries are written in the keys' UTF-8 byte order; the sort (integer prefixes,
    /// then whole bytes) must agree with the byte-by-byte order, for generated keys of ASCII,
    /// accented, non-Latin and astral characters, zero bytes, empty keys and shared prefixes.
    @Test func keysSortInUTF8ByteOrder() async {
        let alphabet = ["a", "b", "Z", "_", " ", "é", "ß", "Ω", "中", "😀", "\u{0}", "~"]
        let key = Gen.int(in: 0..<alphabet.count).array(of: 0...6).map { $0.map { alphabet[$0] }.joined() }
        await propertyCheck(count: 500, input: key, key) { a, b in
            let expected = Array(a.utf8).lexicographicallyPrecedes(Array(b.utf8))
            #expect(DictionaryStorage.precedesInByteOrder(a, b) == expected)
            #expect(DictionaryStorage.precedesInByteOrder(a + b, a) == false)
            #expect(DictionaryStorage.precedesInByteOrder(a, a + "x") == true)
        }
        // Whole lists, with keys sharing their first 8 bytes and keys ending in zero bytes.
        let keys = Gen.int(in: 0..<alphabet.count).array(of: 0...10).map { $0.map { alphabet[$0] }.joined() }
        await propertyCheck(count: 300, input: keys.array(of: 0...25)) { keys in
            let list = keys + keys.map { "abcdefgh" + $0 } + keys.map { $0 + "\u{0}" }
            let storage = DictionaryStorage(source: nil, database: nil, isMutable: true)
            for key in list { storage.set(1, forKey: key) }
            let expected = Array(Set(list)).sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }
            #expect(storage.entriesInByteOrder().map(\.key) == expected)
        }
    }
}
