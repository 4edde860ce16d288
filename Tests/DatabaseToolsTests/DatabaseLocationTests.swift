import DatabaseConversion
import DatabaseTools
import Fleece
import Foundation
import Testing
import TestSupport

/// Parsing bundle paths, opening rules, and the JSON text helpers the commands print with.
@Suite(.ownThreads) struct DatabaseLocationTests {
    @Test func bundlePathIsSplitIntoDirectoryAndName() throws {
        let location = try DatabaseLocation(path: "/data/apps/travel.cblite2/")
        #expect(location.bundle.name == "travel")
        #expect(location.bundle.directory == "/data/apps")
        #expect(location.path == "/data/apps/travel.cblite2/")
    }

    @Test(arguments: ["/data/travel", "/data/travel.sqlite3", "/data/.cblite2"])
    func pathWithoutABundleNameIsRefused(path: String) {
        let error = #expect(throws: DatabaseToolsError.self) { try DatabaseLocation(path: path) }
        #expect(error?.code == .invalidArgument)
        #expect(error?.message.contains(path) == true)
    }

    @Test func readOnlyOpenOfAMissingDatabaseCreatesNothing() throws {
        try withTemporaryDirectory { directory in
            let location = try DatabaseLocation(path: directory.appending("none.cblite2").path)
            let error = #expect(throws: DatabaseToolsError.self) { try location.open(.readOnly) }
            #expect(error?.code == .notFound)
            #expect(!FileManager.default.fileExists(atPath: location.path))
        }
    }

    @Test func createOpenKeepsTheEngineOfAnExistingDatabase() throws {
        try withTemporaryDirectory { directory in
            let location = try DatabaseLocation(path: directory.appending("db.cblite2").path)
            try location.open(.create(engine: "rocksdb")).close()
            let core = try location.open(.create(engine: "sqlite"))
            defer { try? core.close() }
            #expect(core.engine.name == "RocksDB")
        }
    }

    @Test func prettyJSONIndentsAndKeepsStoredOrder() throws {
        let document = try FleeceDocument(json: #"{"b":[1,{"c":"x\"y"}],"a":{},"e":[]}"#)
        #expect(JSONFormatting.pretty(document.root) == """
            {
              "a": {},
              "b": [
                1,
                {
                  "c": "x\\"y"
                }
              ],
              "e": []
            }
            """)
    }

    @Test func metaFieldsComeFirst() throws {
        let body = try FleeceDocument(json: #"{"k":1}"#)
        #expect(JSONFormatting.withMeta(body.root, id: "d\"1", rev: "2-ab") == #"{"_id":"d\"1","_rev":"2-ab","k":1}"#)
        let empty = try FleeceDocument(json: "{}")
        #expect(JSONFormatting.withMeta(empty.root, id: "e", rev: nil) == #"{"_id":"e"}"#)
    }
}
