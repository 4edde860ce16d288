import CSQLite
import Foundation
import Testing
import TestSupport
@testable import Upgrader

/// Fuzzing of what the upgrader reads from a 1.x database: revision rows (revision IDs,
/// parent links, JSON bodies with `_attachments`) mutated from the real iOS 1.3 fixture's rows,
/// written into new 1.x databases and read back; and the fixture's SQLite file itself with
/// bytes changed. Every database is read or refused with an `UpgraderError`.
@Suite(.ownThreads) struct LegacyRowFuzzTests {
    /// The fixture's revision rows: (revid, json).
    static func seedRows() throws -> [(revID: [UInt8], json: [UInt8])] {
        let directory = try TemporaryDirectory()
        let bundle = try FixtureCopies.legacyBundle("ios130", into: directory)
        var connection: OpaquePointer?
        guard sqlite3_open_v2(bundle.appendingPathComponent("db.sqlite3").path, &connection, SQLITE_OPEN_READONLY, nil) == SQLITE_OK
        else { throw MissingFixture(description: "cannot open the ios130 fixture") }
        defer { sqlite3_close_v2(connection) }
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(connection, "SELECT revid, json FROM revs WHERE json IS NOT NULL", -1, &statement, nil) == SQLITE_OK
        else { throw MissingFixture(description: "the ios130 fixture has no revs table") }
        defer { sqlite3_finalize(statement) }
        var rows: [(revID: [UInt8], json: [UInt8])] = []
        while sqlite3_step(statement) == SQLITE_ROW {
            rows.append((column(statement, 0), column(statement, 1)))
        }
        return rows
    }

    private static func column(_ statement: OpaquePointer?, _ index: Int32) -> [UInt8] {
        guard let bytes = sqlite3_column_blob(statement, index) else { return [] }
        return Array(UnsafeRawBufferPointer(start: bytes, count: Int(sqlite3_column_bytes(statement, index))))
    }

    private static func hex(_ bytes: [UInt8]) -> String {
        "X'" + bytes.map { String(format: "%02X", $0) }.joined() + "'"
    }

    static func read(_ bundle: URL) -> FuzzCampaign.Outcome {
        do {
            let reader = try LegacyDatabaseReader(bundlePath: bundle.path)
            defer { reader.close() }
            _ = try reader.documentCount()
            for document in try reader.readAllDocuments() {
                _ = document.revisionID.string
                _ = document.attachments.count
            }
            return .accepted
        } catch is UpgraderError {
            return .rejected
        } catch {
            Issue.record("the 1.x reader threw \(type(of: error)), not UpgraderError: \(error)")
            return .rejected
        }
    }

    @Test func mutatedRevisionRowsAreReadOrRefused() throws {
        let rows = try Self.seedRows()
        let directory = try TemporaryDirectory()
        let tokens = [#""_attachments":{"a":{"digest":"sha1-AAAA","length":99999999999999,"stub":true,"revpos":0}}"#,
                      #""_deleted":true"#, #""digest":"md5-x""#, "{", "}", "[", "]", "\\u0000", "\\ud800", "-", "0"]
        let campaign = try FuzzCampaign.run("1.x revision rows", seed: 0x1E9_0001, inputs: 300) { random in
            // The row decoders on their own.
            let row = rows[Int.random(in: 0..<rows.count, using: &random)]
            let json = FuzzMutator.mutate(row.json, &random, tokens: tokens.map { Array($0.utf8) })
            _ = JSONValidator.validateObject(json)
            _ = JSONValue.parse(json, range: 0..<json.count)
            let revID = Int.random(in: 0..<3, using: &random) == 0
                ? FuzzMutator.mutate(row.revID, &random, tokens: [Array("-".utf8), Array("99999999999999999999".utf8)])
                : row.revID
            _ = LegacyRevisionID(utf8: revID)

            // …and through a database: one to three documents, some with a parent revision.
            let builder = try LegacyDatabaseBuilder(in: directory.url, name: "fuzz-\(random.next())")
            defer { try? FileManager.default.removeItem(at: builder.bundle) }  // allowed: cleanup of a scratch copy
            for index in 0..<Int.random(in: 1...3, using: &random) {
                let key = try builder.addDocument("doc-\(index)")
                var parent = "NULL"
                if Bool.random(using: &random) {
                    let ancestor = rows[Int.random(in: 0..<rows.count, using: &random)]
                    try builder.execute("""
                        INSERT INTO revs (doc_id, revid, current, json, no_attachments)
                        VALUES (\(key), CAST(\(Self.hex(FuzzMutator.mutate(ancestor.revID, &random))) AS TEXT), 0, NULL, 1)
                        """)
                    parent = Int.random(in: 0..<8, using: &random) == 0 ? "\(Int.random(in: 1...9, using: &random))" : "last_insert_rowid()"
                }
                let body = index == 0 ? json : FuzzMutator.mutate(rows[Int.random(in: 0..<rows.count, using: &random)].json, &random)
                try builder.execute("""
                    INSERT INTO revs (doc_id, revid, parent, current, deleted, json, no_attachments)
                    VALUES (\(key), CAST(\(Self.hex(index == 0 ? revID : row.revID)) AS TEXT), \(parent), 1,
                            \(Int.random(in: 0..<6, using: &random) == 0 ? 1 : 0), \(Self.hex(body)), \(Int.random(in: 0...1, using: &random)))
                    """)
            }
            builder.close()
            return Self.read(builder.bundle)
        }
        #expect(campaign.accepted > 0 && campaign.rejected > 0)
        #expect(campaign.slowest < FuzzCampaign.perInputLimit)
    }

    /// The real fixture's SQLite file with bytes changed past its 100-byte header (pages of
    /// the tables, indexes and rows): SQLite's own errors must arrive as `UpgraderError`s.
    @Test func mutatedFixtureFilesAreReadOrRefused() throws {
        let directory = try TemporaryDirectory()
        let original = try FixtureCopies.legacyBundle("ios130", into: directory)
        let database = original.appendingPathComponent("db.sqlite3")
        let bytes = Array(try Data(contentsOf: database))
        let campaign = try FuzzCampaign.run("1.x database files", seed: 0x1E9_0002, inputs: 150) { random in
            var mutated = bytes
            for _ in 0..<Int.random(in: 1...8, using: &random) {
                let index = Int.random(in: 100..<mutated.count, using: &random)
                mutated[index] = Int.random(in: 0..<2, using: &random) == 0
                    ? UInt8.random(in: 0...255, using: &random) : mutated[index] ^ UInt8(1 << Int.random(in: 0..<8, using: &random))
            }
            try Data(mutated).write(to: database)
            return Self.read(original)
        }
        #expect(campaign.accepted + campaign.rejected == campaign.inputs)
        #expect(campaign.slowest < FuzzCampaign.perInputLimit)
    }
}
