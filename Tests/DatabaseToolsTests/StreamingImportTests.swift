import DatabaseConversion
import DatabaseTools
import Fleece
import Foundation
import LiteDatabase
import LiteStorage
import Testing
import TestSupport

/// `DocumentImporter` reads JSON Lines in 1 MiB blocks: lines that straddle blocks, a line longer
/// than a block, CRLF endings, blank lines and a last line without a newline all import; a bad
/// line beyond the first block is named by its number and imports nothing.
@Suite(.ownThreads) struct StreamingImportTests {
    /// Lines of about 700 bytes, one of 2.5 MiB, blank lines and CRLF; no newline at the end.
    private static func input(count: Int) -> (text: String, ids: [String]) {
        var text = ""
        var ids: [String] = []
        for index in 0..<count {
            let id = "doc-\(index)"
            ids.append(id)
            let filler = index == count / 2 ? String(repeating: "x", count: 5 * ImportReaderSize.block / 2)
                                            : String(repeating: "y", count: 600 + index % 97)
            text += #"{"_id":"\#(id)","n":\#(index),"filler":"\#(filler)"}"#
            text += index % 10 == 3 ? "\r\n\n  \n" : (index == count - 1 ? "" : "\n")
        }
        return (text, ids)
    }

    @Test(arguments: StorageEngineKind.allCases)
    func linesAcrossBlocksAllImport(engine: StorageEngineKind) throws {
        try withTemporaryDirectory { directory in
            let (text, ids) = Self.input(count: 4_000)
            let file = directory.appending("docs.jsonl")
            try Data(text.utf8).write(to: file)
            let location = try DatabaseLocation(path: directory.appending("db.cblite2").path)
            let core = try location.open(.create(engine: engine.rawValue))
            defer { try? core.close() }
            var reported: [Int] = []
            let count = try DocumentImporter.importDocuments(into: core, from: file.path) { reported.append($0.completed) }
            #expect(count == ids.count)
            #expect(reported.first == 0 && reported.last == ids.count)
            for (index, id) in ids.enumerated() where index % 37 == 0 || index == ids.count / 2 || index == ids.count - 1 {
                let document = try #require(try core.document(id: id))
                let body = try #require(try document.body(sharedKeys: core.sharedKeys))
                #expect(body.root.dictionary?["n"]?.int64 == Int64(index))
                #expect(body.root.dictionary?["_id"] == nil)
            }
        }
    }

    @Test(arguments: StorageEngineKind.allCases)
    func badLineInALaterBlockIsNamedAndImportsNothing(engine: StorageEngineKind) throws {
        try withTemporaryDirectory { directory in
            var (text, _) = Self.input(count: 3_000)
            text += "\n{\"_id\":\"last\",\"broken\":tru}\n"
            let badLine = text.utf8.split(separator: 0x0A, omittingEmptySubsequences: false).count - 1
            let file = directory.appending("docs.jsonl")
            try Data(text.utf8).write(to: file)
            let location = try DatabaseLocation(path: directory.appending("db.cblite2").path)
            let core = try location.open(.create(engine: engine.rawValue))
            defer { try? core.close() }
            let error = #expect(throws: DatabaseToolsError.self) {
                try DocumentImporter.importDocuments(into: core, from: file.path)
            }
            #expect("\(error.map { "\($0)" } ?? "")".contains("line \(badLine)"))
            #expect(try core.document(id: "doc-0") == nil)
        }
    }

    /// The first bad document is the one reported, whichever of the two passes meets it first:
    /// here the saving pass may meet line 3 (not an object, or an ID that is not a string)
    /// before the check has finished; the syntax error comes 5,000 lines later.
    @Test(arguments: StorageEngineKind.allCases)
    func theFirstBadDocumentIsReported(engine: StorageEngineKind) throws {
        for (bad, expected) in [("[1,2]", "line 3 is not a JSON object"), (#"{"_id":true}"#, #"line 3: property "_id" is not a string"#)] {
            try withTemporaryDirectory { directory in
                var lines = [#"{"_id":"a"}"#, #"{"_id":"b"}"#, bad]
                lines += (0..<5_000).map { #"{"_id":"doc-\#($0)","n":\#($0)}"# }
                lines.append(#"{"_id":"broken",}"#)
                let file = directory.appending("docs.jsonl")
                try Data(lines.joined(separator: "\n").utf8).write(to: file)
                let location = try DatabaseLocation(path: directory.appending("db.cblite2").path)
                let core = try location.open(.create(engine: engine.rawValue))
                defer { try? core.close() }
                let error = #expect(throws: DatabaseToolsError.self) {
                    try DocumentImporter.importDocuments(into: core, from: file.path)
                }
                #expect(error.map { "\($0)" }?.contains(expected) == true, "\(String(describing: error))")
                #expect(try core.document(id: "a") == nil)
            }
        }
    }
}

extension StreamingImportTests {
    /// Documents are encoded on another thread a chunk ahead of the one storing them, and add
    /// shared keys as they go: every key a stored body uses must be persisted by the
    /// transaction that stores it. 2,600 documents with a new key each (the table fills at
    /// 2,048) over three transactions, then the file reopened from scratch: every body reads
    /// back, and every revision ID equals that of the same documents saved one by one on this
    /// thread.
    @Test(arguments: StorageEngineKind.allCases)
    func keysAddedWhileEncodingAheadArePersistedWithTheirDocuments(engine: StorageEngineKind) throws {
        try withTemporaryDirectory { directory in
            let count = 2_600
            let lines = (0..<count).map { #"{"_id":"doc-\#($0)","key\#($0)":\#($0),"n":{"k\#($0 % 7)":[\#($0)]}}"# }
            let file = directory.appending("docs.jsonl")
            try Data(lines.joined(separator: "\n").utf8).write(to: file)
            let imported = directory.appending("imported.cblite2").path
            do {
                let core = try DatabaseLocation(path: imported).open(.create(engine: engine.rawValue))
                defer { try? core.close() }
                #expect(try DocumentImporter.importDocuments(into: core, from: file.path) == count)
            }
            let reference = try DatabaseLocation(path: directory.appending("reference.cblite2").path)
                .open(.create(engine: engine.rawValue))
            defer { try? reference.close() }
            for (index, line) in lines.enumerated() {
                let tape = try Array(line.utf8).withUnsafeBytes { try JSONTape.parse(json: $0) }
                try reference.inTransaction { _ in
                    tape.addKeys(to: reference.sharedKeys)
                    _ = try reference.saveRevision(id: "doc-\(index)", base: nil, policy: .lastWriteWins) { encoder in
                        tape.write(to: encoder, omittingTopLevelKey: "_id")
                    }
                }
            }
            let core = try DatabaseLocation(path: imported).open(.readOnly)
            defer { try? core.close() }
            #expect(core.sharedKeys.count == reference.sharedKeys.count)
            for index in 0..<count {
                let document = try #require(try core.document(id: "doc-\(index)"))
                let body = try #require(try document.body(sharedKeys: core.sharedKeys))
                #expect(body.root.dictionary?["key\(index)"]?.int64 == Int64(index))
                #expect(body.root.dictionary?["n"]?.dictionary?["k\(index % 7)"]?.array?[0]?.int64 == Int64(index))
                #expect(document.revisionID == (try reference.document(id: "doc-\(index)"))?.revisionID)
            }
        }
    }
}

extension StreamingImportTests {
    /// Past the first transaction's limit the rest of the input is checked before that
    /// transaction commits, and the documents after the limit are then read again from the
    /// input: all of them arrive once, in input order of sequences; a bad last line imports
    /// nothing.
    @Test(arguments: StorageEngineKind.allCases)
    func inputLongerThanTheFirstTransactionIsCheckedThenResumed(engine: StorageEngineKind) throws {
        try withTemporaryDirectory { directory in
            let count = DocumentImporter.firstBatchLimit + 1_500
            let lines = (0..<count).map { #"{"_id":"doc-\#($0)","n":\#($0)}"# }
            let good = directory.appending("good.jsonl")
            try Data(lines.joined(separator: "\n").utf8).write(to: good)
            let bad = directory.appending("bad.jsonl")
            try Data((lines + [#"{"_id":"last","n":tru}"#]).joined(separator: "\n").utf8).write(to: bad)

            let refused = try DatabaseLocation(path: directory.appending("refused.cblite2").path)
                .open(.create(engine: engine.rawValue))
            defer { try? refused.close() }
            let error = #expect(throws: DatabaseToolsError.self) {
                try DocumentImporter.importDocuments(into: refused, from: bad.path)
            }
            #expect(error.map { "\($0)" }?.contains("line \(count + 1)") == true, "\(String(describing: error))")
            #expect(try refused.documentCount() == 0)

            let core = try DatabaseLocation(path: directory.appending("db.cblite2").path).open(.create(engine: engine.rawValue))
            defer { try? core.close() }
            #expect(try DocumentImporter.importDocuments(into: core, from: good.path) == count)
            #expect(try core.documentCount() == count)
            #expect(try core.lastSequence() == UInt64(count))
            for index in [0, DocumentImporter.firstBatchLimit - 1, DocumentImporter.firstBatchLimit, count - 1] {
                let document = try #require(try core.document(id: "doc-\(index)"))
                #expect(document.sequence == UInt64(index + 1))
                let body = try #require(try document.body(sharedKeys: core.sharedKeys))
                #expect(body.root.dictionary?["n"]?.int64 == Int64(index))
            }
        }
    }
}

/// The importer's block size, restated so the test makes a line longer than one block.
private enum ImportReaderSize {
    static let block = 1 << 20
}
