import CouchbaseLiteSwift
import Foundation
import Testing
import TestSupport

/// The date functions of formats.md §3.3 (`MILLIS_TO_STR`, `MILLIS_TO_UTC`, `STR_TO_MILLIS`,
/// `STR_TO_UTC`), which 2.8 accepts and this engine refused as unknown functions (found by the
/// generated differential of issue 38). Expected values are Couchbase Lite 2.8's answers.
@Suite(.ownThreads) struct QueryDateFunctionsTests {
    /// The first row of a one-document query, as an array of its columns.
    private func row(_ engine: StorageEngineKind, _ what: String) throws -> [Any?] {
        try withDatabase(engine) { database, _ throws in
            try database.saveDocument(MutableDocument(id: "r", data: ["date": "2015-07-08 03:14:11 +0300", "n": 1_234_567_890_123]))
            let rows = try database.createQuery(json: #"{"WHAT": \#(what), "WHERE": ["=", ["._id"], "r"]}"#).execute()
            return rows.map { $0.toArray() }.first ?? []
        }
    }

    private func int(_ value: Any?) -> Int64? { (value as? NSNumber)?.int64Value ?? value as? Int64 }

    @Test(arguments: StorageEngineKind.allCases)
    func stringsBecomeMilliseconds(engine: StorageEngineKind) throws {
        let values = try row(engine, #"""
            [["STR_TO_MILLIS()", [".date"]], ["STR_TO_MILLIS()", "2013-06-22T18:33:50Z"],
             ["STR_TO_MILLIS()", "2001-01-01T00:00:00.123+01:00"], ["STR_TO_MILLIS()", "0001-01-01T00:00Z"],
             ["STR_TO_MILLIS()", "2020-02-29 12:00:00.5 -0130"], ["STR_TO_MILLIS()", "2021-02-29T00:00:00Z"],
             ["STR_TO_MILLIS()", "2012-13-01T00:00:00Z"], ["STR_TO_MILLIS()", "not a date"],
             ["STR_TO_MILLIS()", "2013-06-22T18:33:50Z x"], ["STR_TO_MILLIS()", 42]]
            """#)
        #expect(int(values[0]) == 1_436_314_451_000)
        #expect(int(values[1]) == 1_371_926_030_000)
        #expect(int(values[2]) == 978_303_600_123)
        #expect(int(values[3]) == -62_135_596_800_000)
        #expect(int(values[4]) == 1_582_983_000_500)
        for index in 5..<10 { #expect(int(values[index]) == nil, "column \(index)") }
    }

    @Test(arguments: StorageEngineKind.allCases)
    func millisecondsBecomeStrings(engine: StorageEngineKind) throws {
        let values = try row(engine, #"""
            [["MILLIS_TO_UTC()", [".n"]], ["MILLIS_TO_UTC()", 0], ["MILLIS_TO_UTC()", 1500.9],
             ["STR_TO_UTC()", "2001-01-01T00:00:00.123+01:00"], ["STR_TO_UTC()", [".date"]],
             ["MILLIS_TO_STR()", ["STR_TO_MILLIS()", "2020-02-29T10:00:00"]], ["MILLIS_TO_UTC()", "0"],
             ["MILLIS_TO_UTC()", -1]]
            """#)
        #expect(values[0] as? String == "2009-02-13T23:31:30.123Z")
        #expect(values[1] as? String == "1970-01-01T00:00:00Z")
        #expect(values[2] as? String == "1970-01-01T00:00:01.500Z")
        #expect(values[3] as? String == "2000-12-31T23:00:00.123Z")
        #expect(values[4] as? String == "2015-07-08T00:14:11Z")
        // Local time both ways: the same wall-clock time comes back, with the zone's suffix.
        #expect((values[5] as? String)?.hasPrefix("2020-02-29T10:00:00") == true)
        #expect(values[6] as? String == nil)
        // 2.8 writes milliseconds only when positive: -1 ms shows as the second it truncates to.
        #expect(values[7] as? String == "1970-01-01T00:00:00Z")
    }

    @Test(arguments: StorageEngineKind.allCases)
    func datesFilterAndSQLPlusPlusNamesThem(engine: StorageEngineKind) throws {
        try withDatabase(engine) { database, _ throws in
            try database.saveDocument(MutableDocument(id: "old", data: ["date": "2013-06-22T18:33:50Z"]))
            try database.saveDocument(MutableDocument(id: "new", data: ["date": "2015-07-08 03:14:11 +0300"]))
            let json = #"{"WHAT": [["._id"]], "WHERE": [">", ["STR_TO_MILLIS()", [".date"]], 1400000000000]}"#
            #expect(try database.createQuery(json: json).execute().map { $0.string(at: 0) } == ["new"])
            let sql = "SELECT META().id FROM _ WHERE STR_TO_UTC(date) LIKE '2013-%'"
            #expect(try database.createQuery(sql).execute().map { $0.string(at: 0) } == ["old"])
        }
    }
}
