import BlobStore
import CouchbaseLiteSwift
import DatabaseConversion
import DatabaseTools
import Fleece
import Foundation
import LiteDatabase
import LiteStorage
import Testing
import TestSupport

/// `cblite-convert` on each real 1.x database gives what opening it with the API gives, and
/// LiteCore's upgrader expectations hold on its output.
@Suite(.ownThreads) struct LegacyConversionTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var fixture: String
        var docs: [(id: String, body: String, history: [String])]
        var blobs: [String]
        var testDescription: String { fixture }
    }

    static let cases: [Case] = {
        guard let data = try? Fixtures.data("v1/expectations.json"),
              let root = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
              let upgrader = root["litecore_UpgraderTest"] as? [String: Any],
              let cases = upgrader["cases"] as? [[String: Any]] else { return [] }
        return cases.compactMap { entry in
            guard let fixture = entry["fixture"] as? String, let docs = entry["docs"] as? [[String: Any]] else {
                return nil
            }
            return Case(fixture: fixture, docs: docs.compactMap { doc in
                guard let id = doc["id"] as? String, let body = doc["body"] as? String,
                      let history = doc["history"] as? [String] else { return nil }
                return (id, body, history)
            }, blobs: entry["blobs"] as? [String] ?? [])
        }
    }()

    /// Every document as (canonical body JSON, revision IDs and flags of its tree).
    private func documents(_ location: DatabaseLocation) throws -> [String: String] {
        let core = try location.open(.readOnly)
        defer { try? core.close() }
        var result: [String: String] = [:]
        let cursor = try core.documents.enumerate(options: RecordEnumerationOptions(includeDeleted: true))
        while let record = try cursor.next() {
            let document = try StoredDocument(record: record)
            let body = try document.body(sharedKeys: core.sharedKeys)?.root.json(canonical: true) ?? "-"
            let tree = document.tree.revisions.map { "\($0.id.string):\($0.flags.rawValue)" }
            result[document.id] = "\(document.flags.rawValue) \(body) \(tree)"
        }
        return result
    }

    @Test(arguments: cases)
    func convertGivesWhatTheAPIGivesAndMeetsLiteCoreExpectations(testCase: Case) throws {
        try withTemporaryDirectory { directory in
            let converted = directory.appending("converted.cblite2").path
            let source = try Fixtures.copy(testCase.fixture, into: directory)
            try makeWritable(source)
            let result = try ToolRunner.convert(source.path, converted, "--engine", "sqlite", "--quiet")
            #expect(result.status == 0, "\(result.stderr)")

            // The same 1.x database opened (and so upgraded) through the public API.
            let apiDirectory = try TemporaryDirectory()
            let copy = try Fixtures.copy(testCase.fixture, into: apiDirectory)
            try makeWritable(copy)
            let config = DatabaseConfiguration()
            config.directory = apiDirectory.path
            try Database(name: copy.deletingPathExtension().lastPathComponent, config: config).close()
            let viaAPI = try DatabaseLocation(path: copy.path)
            let viaTool = try DatabaseLocation(path: converted)
            #expect(try documents(viaTool) == documents(viaAPI))
            let toolBlobs = BlobStore(directory: URL(fileURLWithPath: viaTool.bundle.attachmentsPath))
            let apiBlobs = BlobStore(directory: URL(fileURLWithPath: viaAPI.bundle.attachmentsPath))
            #expect(try StorageVerifier.compareBlobs(apiBlobs, toolBlobs) == apiBlobs.allKeys().count)

            // LiteCore's expectations, checked through the tools' own output.
            for doc in testCase.docs {
                let cat = try ToolRunner.cblite("cat", converted, doc.id, "--raw")
                #expect(cat.status == 0, "\(doc.id): \(cat.stderr)")
                let expected = try FleeceDocument(json: doc.body).root.json(canonical: true)
                let actual = try FleeceDocument(json: String(cat.output.dropLast())).root.json(canonical: true)
                #expect(actual == expected, "\(testCase.fixture) \(doc.id)")
                let revs = try ToolRunner.cblite("revs", converted, doc.id, "--json")
                let listing = try JSONDecoder().decode(RevisionListing.self, from: revs.stdout)
                var chain: [String] = []
                var next = listing.revisions.first { $0.current }
                while let revision = next {
                    chain.append(revision.revID)
                    next = listing.revisions.first { $0.revID == revision.parent }
                }
                #expect(chain == doc.history, "\(testCase.fixture) \(doc.id)")
            }
            for digest in testCase.blobs {
                let blob = try ToolRunner.cblite("blob", converted, digest)
                #expect(blob.status == 0 && !blob.stdout.isEmpty, "\(digest): \(blob.stderr)")
            }
            withExtendedLifetime(apiDirectory) {}
        }
    }

    @Test func expectationsListEverySQLiteFixture() {
        #expect(Self.cases.count == 6, "v1/expectations.json must list LiteCore's six upgrader cases")
    }

    @Test func convertNeverModifiesTheLegacySource() throws {
        try withTemporaryDirectory { directory in
            let source = try Fixtures.copy("v1/android130/androiddb.cblite2", into: directory)
            try makeWritable(source)
            let before = try FolderSnapshot(source)
            let result = try ToolRunner.convert(source.path, directory.appending("out.cblite2").path, "--quiet")
            #expect(result.status == 0, "\(result.stderr)")
            #expect(try FolderSnapshot(source) == before)
            #expect(try DatabaseLocation(path: directory.appending("out.cblite2").path).engine?.name == "RocksDB")
        }
    }
}
