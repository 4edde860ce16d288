import CouchbaseLiteSwift
import Foundation
import LiteSupport
import Testing
import TestSupport

/// `DatabaseConfiguration.encryptionKey` (issue 41): keys and passwords as Couchbase Lite 2.x
/// makes them, an encrypted database that keeps its documents, indexes and queries, and a wrong
/// or missing key refused without a byte changing.
@Suite(.ownThreads) struct DatabaseEncryptionTests {
    /// Engines that encrypt (RocksDB joins when it does).
    static let engines = StorageEngineKind.allCases

    static let marker = "okapi-confidential"

    static func config(_ engine: StorageEngineKind, _ directory: TemporaryDirectory, _ key: EncryptionKey?) -> DatabaseConfiguration {
        let config = engine.config(in: directory)
        config.encryptionKey = key
        return config
    }

    static func fill(_ database: Database) throws {
        try database.inBatch {
            for index in 0..<300 {
                let document = MutableDocument(id: "\(marker)-doc-\(index)", data: [
                    "name": "\(marker) patient \(index)",
                    "notes": index % 2 == 0 ? "quiet room near the station" : "rooms and more rooms",
                    "age": index % 90,
                ])
                if index % 50 == 0 {
                    // Blobs too: no plaintext of theirs may reach Attachments/.
                    let bytes = Data(String(repeating: "\(marker) scan \(index) ", count: 400).utf8)
                    document.setBlob(Blob(contentType: "application/octet-stream", data: bytes), forKey: "scan")
                }
                try database.saveDocument(document)
            }
        }
        try database.createIndex(Index.fullTextIndex(withItems: [FullTextIndexItem.property("notes")]).language("en"),
                                 withName: "notesFTS")
        try database.createIndex(IndexBuilder.valueIndex(items: ValueIndexItem.property("age")), withName: "ageIndex")
    }

    static func answers(_ database: Database) throws -> [[String]] {
        let match = try database.createQuery(
            "SELECT META().id FROM _ WHERE MATCH(notesFTS, 'room') ORDER BY META().id")
        let range = try database.createQuery("SELECT META().id, name FROM _ WHERE age BETWEEN 10 AND 12 ORDER BY META().id")
        return [try match.execute().map { $0.string(at: 0) ?? "" },
                try range.execute().map { "\($0.string(at: 0) ?? ""):\($0.string(at: 1) ?? "")" }]
    }

    static func filesWithPlaintext(_ folder: URL) throws -> [String] {
        let needle = Data(marker.utf8)
        return try FolderSnapshot(folder).files.filter { $0.value.range(of: needle) != nil }.keys.sorted()
    }

    @Test func passwordsDeriveCouchbaseLitesKeys() throws {
        // Expected bytes computed independently: Python's hashlib.pbkdf2_hmac("sha256", password,
        // b"Salty McNaCl", 64000, 32); "password123" is also LiteCore 2.8's own test vector.
        let vectors = [
            "password123": "ad3470ce03363552b20a4a70a4aec02cb7439f6202e75b231ab57f2d5e716909",
            "letmein": "6a9bd780221f4fe8a594fc728a94ba633b882983fe5613db427bb61242bfef0f",
            "pässwörd": "d097ce82526d9ed289079591233a28fedf278a34b0a421d29f8c872ce2ef9b48",
            "": "2e84daa349814cc08c739633c3299f1b8d649d333f4cbf7f361861641da9136d",
        ]
        for (password, expected) in vectors {
            let key = try EncryptionKey.password(password).aes256Key()
            #expect(key.bytes.map { String(format: "%02x", $0) }.joined() == expected, "\(password)")
        }
    }

    @Test func aRawKeyMustBe32Bytes() throws {
        #expect(try EncryptionKey.key(Data(repeating: 7, count: 32)).aes256Key().bytes == [UInt8](repeating: 7, count: 32))
        for count in [0, 16, 31, 33, 64] {
            #expect(errorCode { _ = try EncryptionKey.key(Data(count: count)).aes256Key() } == .invalidParameter)
        }
        try withTemporaryDirectory { directory in
            #expect(errorCode { _ = try Database(name: "short", config: Self.config(.sqlite, directory, .key(Data(count: 16)))) }
                    == .invalidParameter)
            #expect(!FileManager.default.fileExists(atPath: directory.appending("short.cblite2").path))
        }
    }

    @Test(arguments: engines)
    func anEncryptedDatabaseAnswersAsAPlaintextOne(engine: StorageEngineKind) throws {
        try withTemporaryDirectory { directory in
            let plain = try Database(name: "plain", config: Self.config(engine, directory, nil))
            try Self.fill(plain)
            let expected = try Self.answers(plain)
            try plain.close()
            #expect(expected[0].count == 300 && expected[1].count == 12)

            let key = EncryptionKey.password("correct horse battery staple")
            let secret = try Database(name: "secret", config: Self.config(engine, directory, key))
            try Self.fill(secret)
            #expect(try Self.answers(secret) == expected)
            try secret.close()
            let bundle = directory.appending("secret.cblite2")
            #expect(try Self.filesWithPlaintext(bundle) == [])
            #expect(try Self.filesWithPlaintext(directory.appending("plain.cblite2")) != [], "the scan's control")

            let reopened = try Database(name: "secret", config: Self.config(engine, directory, key))
            defer { try? reopened.close() }
            #expect(try Self.answers(reopened) == expected)
            #expect(reopened.document(withID: "\(Self.marker)-doc-7")?.string(forKey: "name") == "\(Self.marker) patient 7")
        }
    }

    @Test(arguments: engines)
    func aWrongOrMissingKeyIsRefusedAndChangesNothing(engine: StorageEngineKind) throws {
        try withTemporaryDirectory { directory in
            let key = EncryptionKey.key(Data((0..<32).map { UInt8($0) }))
            let database = try Database(name: "secret", config: Self.config(engine, directory, key))
            try Self.fill(database)
            try database.close()
            let bundle = directory.appending("secret.cblite2")
            let before = try FolderSnapshot(bundle)
            for wrong: EncryptionKey? in [nil, .password("guess"), .key(Data(repeating: 0, count: 32))] {
                #expect(errorCode { _ = try Database(name: "secret", config: Self.config(engine, directory, wrong)) }
                        == .notADatabaseFile)
            }
            #expect(try FolderSnapshot(bundle) == before)
            let reopened = try Database(name: "secret", config: Self.config(engine, directory, key))
            #expect(reopened.count == 300)
            try reopened.close()
        }
    }

    @Test func aPlaintextDatabaseRefusesAKey() throws {
        try withTemporaryDirectory { directory in
            let database = try Database(name: "plain", config: Self.config(.sqlite, directory, nil))
            try database.saveDocument(MutableDocument(id: "a", data: ["x": 1]))
            try database.close()
            let before = try FolderSnapshot(directory.appending("plain.cblite2"))
            #expect(errorCode { _ = try Database(name: "plain", config: Self.config(.sqlite, directory, .password("p"))) }
                    == .notADatabaseFile)
            #expect(try FolderSnapshot(directory.appending("plain.cblite2")) == before)
        }
    }

    @Test func aFileEncryptedWithAnotherCodecIsReportedAsSuch() throws {
        try withTemporaryDirectory { directory in
            // What a Couchbase Lite Enterprise (SQLite SEE) file looks like from outside: whole
            // pages of noise, no "SQLite format 3" header.
            let bundle = directory.appending("enterprise.cblite2")
            try FileManager.default.createDirectory(at: bundle, withIntermediateDirectories: true)
            var generator = SplitMix64(seed: 41)
            let noise = Data((0..<4 * 4_096).map { _ in UInt8(truncatingIfNeeded: generator.next()) })
            try noise.write(to: bundle.appendingPathComponent("db.sqlite3"))
            for key: EncryptionKey? in [nil, .password("p")] {
                do {
                    _ = try Database(name: "enterprise", config: Self.config(.sqlite, directory, key))
                    Issue.record("opened a file encrypted with another codec")
                } catch let error as CouchbaseLiteError {
                    #expect(error.code == .notADatabaseFile)
                    #expect("\(error)".contains("codec"), "\(error)")
                }
            }
            #expect(try Data(contentsOf: bundle.appendingPathComponent("db.sqlite3")) == noise)
        }
    }
}
