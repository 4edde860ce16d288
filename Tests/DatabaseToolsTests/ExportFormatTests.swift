import DatabaseTools
import Fleece
import Foundation
import LiteDatabase
import LiteStorage
import Testing
import TestSupport

/// The streaming exporter writes, for every live document in ID order, exactly the line
/// `JSONFormatting.withMeta` makes from the document (the form `cblite cat` prints): IDs that
/// need escapes, empty bodies, nested values; deleted documents are left out.
@Suite(.ownThreads) struct ExportFormatTests {
    @Test(arguments: StorageEngineKind.allCases)
    func linesEqualThePerDocumentFormatting(engine: StorageEngineKind) throws {
        try withTemporaryDirectory { directory in
            let location = try DatabaseLocation(path: directory.appending("db.cblite2").path)
            let core = try location.open(.create(engine: engine.rawValue))
            defer { try? core.close() }
            let bodies: [(String, String)] = [
                ("plain", #"{"name":"Zed","n":3,"f":1.5,"tags":["a","b"],"geo":{"lat":1.25,"lon":-3}}"#),
                ("quote\"and\\slash", #"{"s":"line\nbreak\ttab"}"#),
                ("slash/and-unicode-\u{2028}", #"{"big":18446744073709551615,"neg":-9223372036854775808}"#),
                ("ümlaut-東京", #"{"ü":"é","nested":[[],{},[{"x":null}]]}"#),
                ("empty", "{}"),
                ("gone", #"{"deleted":"soon"}"#),
            ]
            for (id, json) in bodies {
                try core.saveRevision(id: id, base: nil, policy: .lastWriteWins) { encoder in
                    try Array(json.utf8).withUnsafeBytes { try JSONConverter.write(json: $0, to: encoder) }
                }
            }
            let gone = try #require(try core.document(id: "gone"))
            try core.saveRevision(id: "gone", base: gone.revisionID, deleted: true, policy: .lastWriteWins) { _ in }
            for index in 0..<3_000 {
                try core.saveRevision(id: String(format: "bulk-%05d", index), base: nil, policy: .lastWriteWins) { encoder in
                    encoder.beginDictionary()
                    encoder.writeKey("index")
                    encoder.writeInt(Int64(index))
                    encoder.writeKey("text")
                    encoder.writeString(String(repeating: "t", count: index % 800))
                    encoder.endDictionary()
                }
            }

            var text: [UInt8] = []
            var chunks = 0
            let count = try DocumentExporter.exportDocuments(of: core) { chunk in
                text.append(contentsOf: chunk)
                chunks += 1
                #expect(chunk.last == 0x0A)
            }
            var expected: [String] = []
            var ids: [String] = []
            let cursor = try core.documents.enumerate(options: RecordEnumerationOptions(includeDeleted: true, content: .metaOnly))
            while let record = try cursor.next() { ids.append(record.key) }
            cursor.close()
            #expect(ids == ids.sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) })
            for id in ids {
                let document = try #require(try core.document(id: id))
                guard !document.isDeleted, let body = try document.body(sharedKeys: core.sharedKeys) else { continue }
                expected.append(JSONFormatting.withMeta(body.root, id: id, rev: nil))
            }
            #expect(count == expected.count)
            #expect(count == bodies.count - 1 + 3_000)
            #expect(chunks >= 2)
            #expect(String(decoding: text, as: UTF8.self) == expected.map { $0 + "\n" }.joined())
        }
    }
}
