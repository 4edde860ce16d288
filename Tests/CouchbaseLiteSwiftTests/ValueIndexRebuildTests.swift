import CSQLite
import Fleece
import Foundation
import LiteDatabase
import LiteQuery
import LiteStorage
import Testing
import TestSupport

/// A value index built over existing documents (``ValueIndex/rebuild(in:txn:)``, which encodes
/// plain properties straight from the lent bodies and, on SQLite, links each entry by the rowid
/// its scan read) holds exactly the entries that saves made one by one through the evaluator
/// hold, links included. Both engines.
@Suite(.ownThreads) struct ValueIndexRebuildTests {
    private static let definition = #"[[".v"],[".w"]]"#
    /// Values of every kind the key encodes, as JSON and as the evaluator reads them: strings
    /// with NUL, non-ASCII and long ones, integers at Int64's edges and past them, doubles, -0,
    /// booleans, null, MISSING, and collections (which the evaluator reads).
    private static let values: [(json: String?, value: QueryValue)] = [
        (nil, .missing), ("null", .null), ("true", .bool(true)), ("false", .bool(false)), ("0", .int(0)),
        ("-0.0", .double(-0.0)), ("1", .int(1)), ("-1", .int(-1)), ("42", .int(42)), ("3.25", .double(3.25)),
        ("-7.5e300", .double(-7.5e300)), ("9223372036854775807", .int(.max)), ("-9223372036854775808", .int(.min)),
        ("18446744073709551615", .double(Double(UInt64.max))), ("1e-320", .double(Double(bitPattern: 2024))), (#""""#, .string("")),
        (#""a""#, .string("a")), (#""a\u0000b""#, .string("a\u{0}b")), (#""\u0000""#, .string("\u{0}")),
        (#""é""#, .string("é")), (#""日本語""#, .string("日本語")), (#""San Francisco""#, .string("San Francisco")),
        ("\"" + String(repeating: "x", count: 300) + "\"", .string(String(repeating: "x", count: 300))),
        ("[]", .array([])), (#"[1,"a"]"#, .array([.int(1), .string("a")])), (#"{"k":1}"#, .dictionary(["k": .int(1)])),
        ("{}", .dictionary([:])),
    ]
    private static let others: [(json: String?, value: QueryValue)] = [(nil, .missing), (#""w""#, .string("w")), ("2", .int(2)),
                                                                       ("[3]", .array([.int(3)]))]

    private func entries(_ name: String, in core: DatabaseCore) throws -> [[UInt8]] {
        var entries: [[UInt8]] = []
        try core.dataFile.byteKeyStore(ValueIndex.storeName(name)).visit(ByteKeyRange(lower: [0x01], upper: [0x02]),
                                                                           descending: false) { key, value in
            entries.append([UInt8](key) + [0xFF] + [UInt8](value))
            return true
        }
        return entries
    }

    @Test(arguments: StorageEngineKind.allCases)
    func aRebuiltIndexEqualsOneKeptBySaves(engine: StorageEngineKind) throws {
        try withTemporaryDirectory { directory in
            try withBareCore(engine, directory, create: true) { core in
                try ValueIndex.create(name: "kept", definition: Self.definition, in: core)
                try core.inTransaction { _ in
                    for (number, v) in Self.values.enumerated() {
                        for (offset, w) in Self.others.enumerated() {
                            let fields = [v.json.map { #""v":\#($0)"# }, w.json.map { #""w":\#($0)"# }].compactMap { $0 }
                            let json = "{" + fields.joined(separator: ",") + "}"
                            try core.saveRevision(id: "d\(number)-\(offset)", base: nil, policy: .failOnConflict) { encoder in
                                try Array(json.utf8).withUnsafeBytes { try JSONConverter.write(json: $0, to: encoder) }
                            }
                        }
                    }
                    // A deleted document has no entry in either.
                    let base = try #require(try core.document(id: "d1-0")).revisionID
                    try core.saveRevision(id: "d1-0", base: base, deleted: true, policy: .failOnConflict) { _ in }
                }
                try ValueIndex.create(name: "rebuilt", definition: Self.definition, in: core)
                // Both hold what `IndexKey` makes of the evaluator's values.
                var expected: [[UInt8]] = []
                for (number, v) in Self.values.enumerated() where v.value != .missing {
                    for (offset, w) in Self.others.enumerated() where (number, offset) != (1, 0) {
                        let id = Array("d\(number)-\(offset)".utf8)
                        expected.append([0x01] + IndexKey.encode([v.value, w.value]) + id + [0xFF] + id)
                    }
                }
                expected.sort { $0.lexicographicallyPrecedes($1) }
                #expect(expected.count == (Self.values.count - 1) * 4 - 1)
                #expect(try entries("kept", in: core) == expected)
                #expect(try entries("rebuilt", in: core) == expected)
            }
            guard engine == .sqlite else { return }
            // The rebuilt entries' links (rowids the scan read) are those the saves looked up.
            var handle: OpaquePointer?
            let path = directory.appending("test.cblite2/db.sqlite3").path
            #expect(sqlite3_open(path, &handle) == SQLITE_OK)
            defer { sqlite3_close(handle) }
            var statement: OpaquePointer?
            let sql = """
                SELECT count(*), sum(a."rowid in kv_default" = b."rowid in kv_default"),
                       sum(a."rowid in kv_default" = kv.rowid AND kv.key = CAST(a.value AS TEXT))
                FROM "bk_value:kept" AS a JOIN "bk_value:rebuilt" AS b ON a.key = b.key AND a.value = b.value
                LEFT JOIN kv_default AS kv ON kv.rowid = b."rowid in kv_default" WHERE a.key >= x'01'
                """
            #expect(sqlite3_prepare_v2(handle, sql, -1, &statement, nil) == SQLITE_OK)
            defer { sqlite3_finalize(statement) }
            #expect(sqlite3_step(statement) == SQLITE_ROW)
            let count = sqlite3_column_int64(statement, 0)
            #expect(count == Int64((Self.values.count - 1) * 4 - 1))
            #expect(sqlite3_column_int64(statement, 1) == count && sqlite3_column_int64(statement, 2) == count)
        }
    }
}
