import BlobStore
import CouchbaseLiteSwift
import DatabaseConversion
import DatabaseTools
import Fleece
import Foundation
import LiteDatabase
import LiteStorage
import LiteSupport
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

    /// A 1.x database upgraded into an encrypted 2.x one — through the API with a configured
    /// key, and through `cblite-convert --new-encryption-key-file` — holds what a plaintext
    /// upgrade holds, and no document ID, string or attachment byte of it reaches the disk.
    @Test(arguments: cases)
    func upgradingIntoAnEncryptedDatabaseKeepsEverythingAndShowsNothing(testCase: Case) throws {
        let keyBytes = Data((0..<32).map { UInt8($0 ^ 0x5A) })
        let key = try #require(AES256Key(bytes: Array(keyBytes)))
        let plainDirectory = try TemporaryDirectory(), apiDirectory = try TemporaryDirectory()
        let toolDirectory = try TemporaryDirectory()
        // The plaintext upgrade, as the reference.
        let plainCopy = try Fixtures.copy(testCase.fixture, into: plainDirectory)
        let name = plainCopy.deletingPathExtension().lastPathComponent
        let plainConfig = DatabaseConfiguration()
        plainConfig.directory = plainDirectory.path
        try Database(name: name, config: plainConfig).close()
        let plain = try DatabaseLocation(path: plainCopy.path)
        let expected = try documents(plain)
        #expect(expected.count == testCase.docs.count)

        // Through the API, with a key configured.
        let apiCopy = try Fixtures.copy(testCase.fixture, into: apiDirectory)
        let config = DatabaseConfiguration()
        config.directory = apiDirectory.path
        config.encryptionKey = .key(keyBytes)
        try Database(name: name, config: config).close()
        // Through the converter, into a new bundle with a new key.
        let source = try Fixtures.copy(testCase.fixture, into: toolDirectory)
        let keyFile = toolDirectory.appending("key.bin")
        try keyBytes.write(to: keyFile)
        let converted = toolDirectory.appending("converted.cblite2").path
        let result = try ToolRunner.convert(source.path, converted, "--new-encryption-key-file", keyFile.path, "--quiet")
        #expect(result.status == 0, "\(result.stderr)")

        let plainBlobs = BlobStore(directory: URL(fileURLWithPath: plain.bundle.attachmentsPath))
        var secrets = try plainBlobs.allKeys().map { Array(try plainBlobs.data(for: $0)) }
        secrets += testCase.docs.map { Array($0.id.utf8) }
        for doc in testCase.docs {
            let strings = try FleeceDocument(json: doc.body).root.json(canonical: true)
                .split(separator: "\"").filter { $0.utf8.count >= 6 && !$0.contains(":") }
            secrets += strings.map { Array($0.utf8) }
        }
        for path in [apiCopy.path, converted] {
            let location = try DatabaseLocation(path: path, encryptionKey: key)
            #expect(try documents(location) == expected, "\(path)")
            let blobs = BlobStore(directory: URL(fileURLWithPath: location.bundle.attachmentsPath), encryptionKey: key)
            #expect(try StorageVerifier.compareBlobs(plainBlobs, blobs) == plainBlobs.allKeys().count)
            #expect(throws: (any Error).self) { try documents(DatabaseLocation(path: path)) }
            for file in try FolderSnapshot(URL(fileURLWithPath: path)).files {
                for secret in secrets where file.value.range(of: Data(secret)) != nil {
                    Issue.record("\(testCase.fixture): \(file.key) holds \(String(decoding: secret, as: UTF8.self))")
                }
            }
        }
    }
}
