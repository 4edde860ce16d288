import BlobStore
import Foundation
import Testing
import TestSupport

/// `cblite` run as a built executable: output, exit codes and one-line errors.
@Suite(.ownThreads) struct CBLiteCommandTests {
    static let commands = ["info", "ls", "cat", "revs", "put", "rm", "purge", "import", "export", "blob", "compact"]

    private func expectOneLineFailure(_ result: ToolRunner.Result, mentioning text: String,
                                      sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(result.status != 0, sourceLocation: sourceLocation)
        #expect(result.stderr.hasPrefix("cblite"), "\(result.stderr)", sourceLocation: sourceLocation)
        #expect(result.stderr.filter { $0 == "\n" }.count == 1, "\(result.stderr)", sourceLocation: sourceLocation)
        #expect(result.stderr.contains(text), "\(result.stderr)", sourceLocation: sourceLocation)
    }

    @Test func everyCommandHasHelp() throws {
        for command in [[]] + Self.commands.map({ [$0] }) {
            let result = try ToolRunner.run("cblite", command + ["--help"])
            #expect(result.status == 0, "\(command)")
            #expect(result.output.contains("USAGE"), "\(command)")
        }
        #expect(try ToolRunner.convert("--help").status == 0)
    }

    @Test func argumentErrorIsOneLineWithUsageExitCode() throws {
        let result = try ToolRunner.cblite("ls")
        #expect(result.status == 64)
        #expect(result.stderr == "cblite: Missing expected argument '<database>' (see --help)\n")
        let convert = try ToolRunner.convert("only-one.cblite2")
        #expect(convert.status == 64)
        #expect(convert.stderr.filter { $0 == "\n" }.count == 1)
    }

    /// Extra arguments each read-only command needs after the database.
    static let readOnlyCommands: [String: [String]] = [
        "info": [], "ls": [], "export": ["-"], "cat": ["doc"], "revs": ["doc"],
        "blob": ["sha1-AAAAAAAAAAAAAAAAAAAAAAAAAAA="],
    ]

    @Test(arguments: readOnlyCommands.keys.sorted())
    func readOnlyCommandOnMissingDatabaseFailsWithoutCreatingIt(command: String) throws {
        try withTemporaryDirectory { directory in
            let path = directory.appending("missing.cblite2").path
            let result = try ToolRunner.run("cblite", [command, path] + (Self.readOnlyCommands[command] ?? []))
            expectOneLineFailure(result, mentioning: "no database")
            #expect(!FileManager.default.fileExists(atPath: path))
        }
    }

    @Test(arguments: StorageEngineKind.allCases)
    func putCreatesTheDatabaseAndCatPrintsTheBody(engine: StorageEngineKind) throws {
        try withTemporaryDirectory { directory in
            let db = directory.appending("db.cblite2").path
            let put = try ToolRunner.cblite("put", db, "doc1", #"{"name":"Ann","age":42}"#, "--engine", engine.rawValue)
            #expect(put.status == 0, "\(put.stderr)")
            #expect(put.output.hasPrefix("1-"))
            let cat = try ToolRunner.cblite("cat", db, "doc1", "--raw")
            // Shared keys are numbered in the order the text names them (name 0, age 1), as
            // Couchbase Lite numbers them, and the stored dictionary is in key-number order.
            #expect(cat.output == "{\"name\":\"Ann\",\"age\":42}\n")
            let withRev = try ToolRunner.cblite("cat", db, "doc1", "--rev", "--raw")
            #expect(withRev.output.hasPrefix("{\"_id\":\"doc1\",\"_rev\":\"1-"))
            let info = try ToolRunner.cblite("info", db, "--json")
            let object = try #require(try JSONSerialization.jsonObject(with: info.stdout) as? [String: Any])
            #expect(object["engine"] as? String == engine.engine.name)
            #expect(object["documentCount"] as? Int == 1)
            #expect(object["deletedCount"] as? Int == 0)
            #expect(object["lastSequence"] as? Int == 1)
            #expect(object["blobCount"] as? Int == 0)
        }
    }

    @Test func putReadsTheBodyFromStdin() throws {
        try withTemporaryDirectory { directory in
            let db = directory.appending("db.cblite2").path
            let put = try ToolRunner.cblite("put", db, "doc", "-", input: Data(#"{"from":"stdin"}"#.utf8))
            #expect(put.status == 0, "\(put.stderr)")
            #expect(try ToolRunner.cblite("cat", db, "doc", "--raw").output == "{\"from\":\"stdin\"}\n")
        }
    }

    @Test func putRejectsABodyThatIsNotAnObject() throws {
        try withTemporaryDirectory { directory in
            let db = directory.appending("db.cblite2").path
            expectOneLineFailure(try ToolRunner.cblite("put", db, "doc", "[1,2]"), mentioning: "JSON object")
            #expect(!FileManager.default.fileExists(atPath: db))
        }
    }

    @Test func rmLeavesATombstoneThatLsShowsOnlyWithDeleted() throws {
        try withTemporaryDirectory { directory in
            let db = directory.appending("db.cblite2").path
            _ = try ToolRunner.cblite("put", db, "a", "{}")
            _ = try ToolRunner.cblite("put", db, "b", "{}")
            let rm = try ToolRunner.cblite("rm", db, "a")
            #expect(rm.status == 0)
            #expect(rm.output.hasPrefix("2-"))
            #expect(try ToolRunner.cblite("ls", db).lines == ["b"])
            #expect(try ToolRunner.cblite("ls", db, "--deleted").lines == ["a", "b"])
            expectOneLineFailure(try ToolRunner.cblite("cat", db, "a"), mentioning: "no document \"a\"")
            let revs = try ToolRunner.cblite("revs", db, "a", "--json")
            let object = try #require(try JSONSerialization.jsonObject(with: revs.stdout) as? [String: Any])
            let revisions = try #require(object["revisions"] as? [[String: Any]])
            #expect(revisions.count == 2)
            #expect(revisions.first?["deleted"] as? Bool == true)
            #expect(revisions.first?["current"] as? Bool == true)
        }
    }

    /// `ls -l` prints what Couchbase Lite 2.8's cblite prints: a heading, then per document the
    /// ID in 24 columns, the revision ID cut to 10, the flags, the sequence and the size.
    @Test func lsLongListsRevisionIDsAndFlagsAsTheRealTool() throws {
        try withTemporaryDirectory { directory in
            let db = directory.appending("db.cblite2").path
            _ = try ToolRunner.cblite("put", db, "a", #"{"n":1}"#)
            _ = try ToolRunner.cblite("put", db, "b", #"{"n":2}"#)
            let rm = try ToolRunner.cblite("rm", db, "a")
            let removed = String(rm.output.trimmingCharacters(in: .whitespacesAndNewlines).prefix(10))
            #expect(removed.hasPrefix("2-") && removed.count == 10)
            let lines = try ToolRunner.cblite("ls", db, "-l", "--deleted").lines
            #expect(lines.count == 3)
            #expect(lines.first == "Document ID             Rev ID     Flags   Seq     Size")
            #expect(lines.dropFirst().first == "a" + String(repeating: " ", count: 23) + removed + "d--       3 "
                    + (lines.dropFirst().first.map { String($0.suffix(8)) } ?? ""))
            let b = try #require(lines.last)
            #expect(b.wholeMatch(of: /b {23}1-[0-9a-f]{8}---       2 +[0-9.e+]+K/) != nil, "\(b)")
            #expect(try ToolRunner.cblite("ls", db, "-l").lines.count == 2)
            #expect(try ToolRunner.cblite("ls", db, "-l", "--deleted", "--limit", "1", "--offset", "1").lines
                    == ["(Skipping first 1 docs)", lines[0], b])
            #expect(try ToolRunner.cblite("ls", db, "-l", "--deleted", "--limit", "1").lines.last == "(Stopping after 1 docs)")
            let empty = directory.appending("empty.cblite2").path
            _ = try ToolRunner.cblite("put", empty, "x", "{}")
            _ = try ToolRunner.cblite("purge", empty, "x")
            #expect(try ToolRunner.cblite("ls", empty, "-l").lines == ["(No documents)"])
        }
    }

    @Test func purgeRemovesTheDocumentAndCountsIt() throws {
        try withTemporaryDirectory { directory in
            let db = directory.appending("db.cblite2").path
            _ = try ToolRunner.cblite("put", db, "a", "{}")
            #expect(try ToolRunner.cblite("purge", db, "a").status == 0)
            #expect(try ToolRunner.cblite("ls", db, "--deleted").lines.isEmpty)
            let info = try ToolRunner.cblite("info", db, "--json")
            let object = try #require(try JSONSerialization.jsonObject(with: info.stdout) as? [String: Any])
            #expect(object["purgeCount"] as? Int == 1)
            expectOneLineFailure(try ToolRunner.cblite("purge", db, "a"), mentioning: "no document \"a\"")
        }
    }

    @Test func lsHonoursLimitOffsetDescendingAndJSON() throws {
        try withTemporaryDirectory { directory in
            let db = directory.appending("db.cblite2").path
            let file = directory.appending("docs.jsonl")
            let lines = (1...9).map { #"{"_id":"d\#($0)","n":\#($0)}"# }.joined(separator: "\n")
            try Data(lines.utf8).write(to: file)
            #expect(try ToolRunner.cblite("import", db, file.path, "--quiet").status == 0)
            #expect(try ToolRunner.cblite("ls", db, "--limit", "2", "--offset", "3").lines == ["d4", "d5"])
            #expect(try ToolRunner.cblite("ls", db, "--desc", "--limit", "2").lines == ["d9", "d8"])
            #expect(try ToolRunner.cblite("ls", db, "--limit", "2", "--json").output == "[\"d1\",\"d2\"]\n")
        }
    }

    /// The real tool's `cp SOURCE DESTINATION`: JSON → database, database → JSON, database →
    /// database; `--jsonid`, `-x`; two JSON files is a clear error.
    @Test func cpCopiesAsTheRealToolDoes() throws {
        try withTemporaryDirectory { directory in
            let input = directory.appending("docs.json")
            try Data(#"[{"code":"x","v":1},{"code":"y","v":2}]"#.utf8).write(to: input)
            let db = directory.appending("db.cblite2").path
            let imported = try ToolRunner.cblite("cp", input.path, db, "--jsonid", "code")
            #expect(imported.status == 0, "\(imported.stderr)")
            #expect(try ToolRunner.cblite("ls", db).lines == ["x", "y"])
            // The revision the real 2.8 `cp --jsonid code` gives (see the test below).
            #expect(try ToolRunner.cblite("cat", db, "y", "--rev", "--raw").output
                    == "{\"_id\":\"y\",\"_rev\":\"1-2eb3d26c3128b1f8069c60afe40d7e8309998b55\",\"v\":2}\n")

            let output = directory.appending("out.json").path
            #expect(try ToolRunner.cblite("cp", db, output).status == 0)
            #expect(try String(contentsOfFile: output, encoding: .utf8).split(separator: "\n")
                    == [#"{"_id":"x","v":1}"#, #"{"_id":"y","v":2}"#])

            let copy = directory.appending("copy.cblite2").path
            expectOneLineFailure(try ToolRunner.cblite("cp", "-x", db, copy), mentioning: "does not exist")
            let copied = try ToolRunner.cblite("cp", db, copy)
            #expect(copied.status == 0, "\(copied.stderr)")
            #expect(try ToolRunner.cblite("cat", copy, "y", "--rev", "--raw").output
                    == "{\"_id\":\"y\",\"_rev\":\"1-2eb3d26c3128b1f8069c60afe40d7e8309998b55\",\"v\":2}\n")
            expectOneLineFailure(try ToolRunner.cblite("cp", output, input.path), mentioning: "one end must be a database")
        }
    }

    /// The real tool's `select`: a SQL++ query without its leading SELECT (or with it).
    @Test func selectRunsTheQueryAfterSelect() throws {
        try withTemporaryDirectory { directory in
            let db = directory.appending("db.cblite2").path
            #expect(try ToolRunner.cblite("put", db, "a", #"{"n":1,"t":"x"}"#).status == 0)
            #expect(try ToolRunner.cblite("put", db, "b", #"{"n":2,"t":"y"}"#).status == 0)
            let expected = try ToolRunner.cblite("query", db, "SELECT n FROM _ WHERE t = 'y'").output
            #expect(expected == "[2]\n")
            #expect(try ToolRunner.cblite("select", db, "n FROM _ WHERE t = 'y'").output == expected)
            #expect(try ToolRunner.cblite("select", db, "SELECT n FROM _ WHERE t = 'y'").output == expected)
        }
    }

    @Test func importTakesAJSONArrayWithAnIDKey() throws {
        try withTemporaryDirectory { directory in
            let db = directory.appending("db.cblite2").path
            let file = directory.appending("docs.json")
            try Data(#"[{"code":"x","v":1},{"code":"y","v":2}]"#.utf8).write(to: file)
            let result = try ToolRunner.cblite("import", db, file.path, "--id-key", "code")
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.output.contains("Imported 2 documents"))
            // As Couchbase Lite 2.8's `cblite cp --jsonid code`: the ID property leaves the body
            // (revision measured with the real 2.8 tool).
            #expect(try ToolRunner.cblite("cat", db, "y", "--rev", "--raw").output
                    == "{\"_id\":\"y\",\"_rev\":\"1-2eb3d26c3128b1f8069c60afe40d7e8309998b55\",\"v\":2}\n")
        }
    }

    /// Elements are cut out of the array's text: commas, brackets, braces and escaped quotes
    /// inside strings and nested values do not split an element.
    @Test func importCutsArrayElementsOnlyAtTopLevelCommas() throws {
        try withTemporaryDirectory { directory in
            let db = directory.appending("db.cblite2").path
            let file = directory.appending("docs.json")
            try Data(#"[{"_id":"p","s":"a,]}[{\"\\","n":[[1,{"x":"]"}],2]},{"_id":"q"}]"#.utf8).write(to: file)
            let result = try ToolRunner.cblite("import", db, file.path)
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.output.contains("Imported 2 documents"))
            #expect(try ToolRunner.cblite("cat", db, "p", "--raw").output == #"{"s":"a,]}[{\"\\","n":[[1,{"x":"]"}],2]}"# + "\n")
            #expect(try ToolRunner.cblite("cat", db, "q", "--raw").output == "{}\n")
        }
    }

    @Test func importTakesAFolderOfJSONFilesNamedByID() throws {
        try withTemporaryDirectory { directory in
            let db = directory.appending("db.cblite2").path
            let folder = directory.appending("docs")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try Data(#"{"k":1}"#.utf8).write(to: folder.appendingPathComponent("first.json"))
            try Data(#"{"_id":"named","k":2}"#.utf8).write(to: folder.appendingPathComponent("second.json"))
            #expect(try ToolRunner.cblite("import", db, folder.path, "--quiet").status == 0)
            #expect(try ToolRunner.cblite("ls", db).lines == ["first", "named"])
        }
    }

    @Test func importReportsTheBadLine() throws {
        try withTemporaryDirectory { directory in
            let db = directory.appending("db.cblite2").path
            let file = directory.appending("bad.jsonl")
            try Data("{\"_id\":\"a\"}\n{oops\n".utf8).write(to: file)
            expectOneLineFailure(try ToolRunner.cblite("import", db, file.path, "--quiet"), mentioning: "line 2")
        }
    }

    @Test func importPrintsPlainProgressLinesWhenNotATerminal() throws {
        try withTemporaryDirectory { directory in
            let db = directory.appending("db.cblite2").path
            let file = directory.appending("docs.jsonl")
            try Data(#"{"_id":"a"}"#.utf8).write(to: file)
            let result = try ToolRunner.cblite("import", db, file.path)
            #expect(result.stderr.contains("importing: 100%  1/1"))
            #expect(!result.stderr.contains("\r"))
            let quiet = try ToolRunner.cblite("import", db, file.path, "--quiet")
            #expect(quiet.stderr.isEmpty)
        }
    }

    @Test func exportWritesJSONLinesWithIDs() throws {
        try withTemporaryDirectory { directory in
            let db = directory.appending("db.cblite2").path
            _ = try ToolRunner.cblite("put", db, "b", #"{"x":[1,2]}"#)
            _ = try ToolRunner.cblite("put", db, "a", #"{"y":"z"}"#)
            let out = directory.appending("out.jsonl")
            #expect(try ToolRunner.cblite("export", db, out.path).status == 0)
            let text = try String(contentsOf: out, encoding: .utf8)
            #expect(text == "{\"_id\":\"a\",\"y\":\"z\"}\n{\"_id\":\"b\",\"x\":[1,2]}\n")
            #expect(try ToolRunner.cblite("export", db, "-").output == text)
        }
    }

    @Test func blobWritesTheBytesOfAStoredBlob() throws {
        try withTemporaryDirectory { directory in
            let bundle = try Fixtures.copy("v2/android200-sqlite/android-sqlite.cblite2", into: directory)
            try makeWritable(bundle)
            let store = bundle.appendingPathComponent("Attachments")
            let name = try #require(try FileManager.default.contentsOfDirectory(atPath: store.path)
                .first { $0.hasSuffix(".blob") })
            let bytes = try Data(contentsOf: store.appendingPathComponent(name))
            let digest = try BlobKey(fileName: name).string
            let result = try ToolRunner.cblite("blob", bundle.path, digest)
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stdout == bytes)
            let out = directory.appending("blob.bin")
            #expect(try ToolRunner.cblite("blob", bundle.path, digest, "--out", out.path).status == 0)
            #expect(try Data(contentsOf: out) == bytes)
            expectOneLineFailure(try ToolRunner.cblite("blob", bundle.path, "sha1-AAAAAAAAAAAAAAAAAAAAAAAAAAA="),
                                 mentioning: "no blob")
        }
    }

    @Test func compactSucceedsOnAWritableDatabase() throws {
        try withTemporaryDirectory { directory in
            let db = directory.appending("db.cblite2").path
            _ = try ToolRunner.cblite("put", db, "a", "{}")
            let result = try ToolRunner.cblite("compact", db)
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.output.contains("Compacted"))
        }
    }

    @Test func legacyDatabaseIsRefusedWithoutUpgradeAndNotModified() throws {
        try withTemporaryDirectory { directory in
            let bundle = try Fixtures.copy("v1/ios130/iosdb.cblite2", into: directory)
            try makeWritable(bundle)
            let before = try FolderSnapshot(bundle)
            for command in ["info", "ls"] {
                expectOneLineFailure(try ToolRunner.cblite(command, bundle.path), mentioning: "--upgrade")
            }
            #expect(try FolderSnapshot(bundle) == before)
        }
    }

    @Test func upgradeFlagUpgradesALegacyDatabaseInPlace() throws {
        try withTemporaryDirectory { directory in
            let bundle = try Fixtures.copy("v1/ios130/iosdb.cblite2", into: directory)
            try makeWritable(bundle)
            let result = try ToolRunner.cblite("ls", bundle.path, "--upgrade")
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.lines == ["doc1", "doc2"])
            #expect(try ToolRunner.cblite("info", bundle.path).status == 0)
        }
    }

    @Test func unknownEngineIsAnError() throws {
        try withTemporaryDirectory { directory in
            let db = directory.appending("db.cblite2").path
            expectOneLineFailure(try ToolRunner.cblite("put", db, "a", "{}", "--engine", "forestdb"),
                                 mentioning: "unknown storage engine")
        }
    }
}

/// `cblite put` gives the revision IDs real Couchbase Lite 2.8's `cblite put` gives for the
/// same texts in the same order (facts measured with Couchbase Lite 2.8, issue 20).
@Suite(.ownThreads) struct CBLitePutRevisionIDTests {
    @Test(arguments: StorageEngineKind.allCases)
    func putGivesCouchbaseLite28RevisionIDs(engine: StorageEngineKind) throws {
        try withTemporaryDirectory { directory in
            let db = directory.appending("db.cblite2").path
            let saves: [(String, String, String)] = [
                ("d1", #"{"name":"Zed","type":"hotel","n":3,"f":1.5,"tags":["a","b"],"geo":{"lat":1.25,"lon":-3}}"#,
                 "1-1265861c2d5a55685760f0a96f689e036e777672"),
                ("d2", #"{"zeta":"last","alpha":"first","mid":{"y":"2","x":"1"}}"#, "1-834785d93ec5f3ee9dfc0538593b134ac953125c"),
                ("d3", #"{"b":"bbb","a":"aaa"}"#, "1-e231bdadfef666ce4523a85803fe826af0b59040"),
                ("d4", #"{"a":"aaa","b":"bbb"}"#, "1-9dc92cdae92d7263b9808eb6e3622310f507437c"),
                ("d5", #"{"num":[1,-2,300,70000,5000000000,1.5,-0.25,1e300],"s":"x","t":true,"nil":null}"#,
                 "1-20b3f111179a5d821519e225a501a0138e217e4d"),
            ]
            for (id, json, expected) in saves {
                let put = try ToolRunner.cblite("put", db, id, json, "--engine", engine.rawValue)
                #expect(put.status == 0, "\(put.stderr)")
                #expect(put.output == expected + "\n", "\(id)")
            }
        }
    }

    /// The same five objects, with `_id` at different places, as the elements of one JSON array
    /// given to `cblite import`: the revision IDs are those Couchbase Lite 2.8's `cblite cp`
    /// gives the same objects as JSON Lines (measured with the real 2.8 tool): it encodes the
    /// whole object, so `_id` becomes a shared key, then writes it again without `_id`, entries
    /// in stored order (so d3 and d4 get one revision ID).
    @Test(arguments: StorageEngineKind.allCases)
    func importGivesTheRevisionIDsOfCouchbaseLite28sCp(engine: StorageEngineKind) throws {
        try withTemporaryDirectory { directory in
            let db = directory.appending("db.cblite2").path
            let file = directory.appending("saves.json")
            let text = """
                [ {"_id":"d1","name":"Zed","type":"hotel","n":3,"f":1.5,"tags":["a","b"],"geo":{"lat":1.25,"lon":-3}} ,
                  {"zeta":"last","_id":"d2","alpha":"first","mid":{"y":"2","x":"1"}},
                  {"b":"bbb","a":"aaa","_id":"d3"},{"_id":"d4","a":"aaa","b":"bbb"},
                  {"num":[1,-2,300,70000,5000000000,1.5,-0.25,1e300],"s":"x","_id":"d5","t":true,"nil":null}
                ]
                """
            try Data(text.utf8).write(to: file)
            let result = try ToolRunner.cblite("import", db, file.path, "--engine", engine.rawValue)
            #expect(result.status == 0, "\(result.stderr)")
            let expected = [
                ("d1", "1-8cfa659257ff0987ee55eb4a76d625bb4e1fbc37"), ("d2", "1-a8ae7eb99778e0226dbed301245836710bbebf32"),
                ("d3", "1-dc8e9bb9feae4a35065e0deb62a86424914f6f39"), ("d4", "1-dc8e9bb9feae4a35065e0deb62a86424914f6f39"),
                ("d5", "1-421dc5121567afde0165bcae0ea3d2220056c74a"),
            ]
            for (id, rev) in expected {
                let cat = try ToolRunner.cblite("cat", db, id, "--rev", "--raw")
                #expect(cat.output.contains("\"_rev\":\"\(rev)\""), "\(id): \(cat.output)")
            }
        }
    }
}
