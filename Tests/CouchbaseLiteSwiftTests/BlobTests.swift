import CouchbaseLiteSwift
import Crypto
import Foundation
import Testing
import TestSupport

@Suite(.ownThreads) struct BlobTests {
    private func sha1Digest(_ data: Data) -> String {
        "sha1-" + Data(Insecure.SHA1.hash(data: data)).base64EncodedString()
    }

    private func attachmentFiles(_ database: Database) throws -> [String] {
        let folder = (try #require(database.path) as NSString).appendingPathComponent("Attachments")
        return ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).filter { $0.hasSuffix(".blob") }
    }

    @Test(arguments: StorageEngineKind.allCases)
    func dataBlobRoundTrips(engine: StorageEngineKind) throws {
        try withDatabase(engine) { database, _ in
            let content = Data("hello, blob".utf8)
            let doc = MutableDocument(id: "doc").setBlob(Blob(contentType: "text/plain", data: content), forKey: "b")
            try database.saveDocument(doc)
            let blob = try #require(database.document(withID: "doc")?.blob(forKey: "b"))
            #expect(blob.content == content)
            #expect(blob.length == UInt64(content.count))
            #expect(blob.digest == sha1Digest(content))
            #expect(blob.contentType == "text/plain")
            #expect(blob.properties["@type"] as? String == "blob")
        }
    }

    @Test(arguments: StorageEngineKind.allCases)
    func streamAndFileBlobsRoundTrip(engine: StorageEngineKind) throws {
        try withDatabase(engine) { database, directory in
            let streamed = Data((0..<100_000).map { UInt8(truncatingIfNeeded: $0 &* 7) })
            let fileContent = Data("from a file".utf8)
            let file = directory.appending("source.txt")
            try fileContent.write(to: file)
            let doc = MutableDocument(id: "doc")
                .setBlob(Blob(contentType: "application/octet-stream", contentStream: InputStream(data: streamed)), forKey: "s")
                .setBlob(try Blob(contentType: "text/plain", fileURL: file), forKey: "f")
            try database.saveDocument(doc)
            let read = try #require(database.document(withID: "doc"))
            #expect(read.blob(forKey: "s")?.content == streamed)
            #expect(read.blob(forKey: "s")?.digest == sha1Digest(streamed))
            #expect(read.blob(forKey: "f")?.content == fileContent)
            let stream = try #require(read.blob(forKey: "s")?.contentStream)
            stream.open()
            defer { stream.close() }
            var readBack = Data()
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                let count = stream.read(&buffer, maxLength: buffer.count)
                if count <= 0 { break }
                readBack.append(contentsOf: buffer[0..<count])
            }
            #expect(readBack == streamed)
        }
    }

    @Test(arguments: StorageEngineKind.allCases)
    func emptyAndNestedBlobs(engine: StorageEngineKind) throws {
        try withDatabase(engine) { database, _ in
            let empty = Blob(contentType: "text/plain", data: Data())
            let inArray = Blob(contentType: "text/plain", data: Data("in array".utf8))
            let inDictionary = Blob(contentType: "text/plain", data: Data("in dict".utf8))
            let doc = MutableDocument(id: "doc")
                .setBlob(empty, forKey: "empty")
                .setArray(MutableArrayObject().addBlob(inArray), forKey: "list")
                .setDictionary(MutableDictionaryObject().setBlob(inDictionary, forKey: "inner"), forKey: "nested")
            try database.saveDocument(doc)
            let read = try #require(database.document(withID: "doc"))
            #expect(read.blob(forKey: "empty")?.content == Data())
            #expect(read.blob(forKey: "empty")?.length == 0)
            #expect(read.array(forKey: "list")?.blob(at: 0)?.content == Data("in array".utf8))
            #expect(read["nested"]["inner"].blob?.content == Data("in dict".utf8))
        }
    }

    @Test(arguments: StorageEngineKind.allCases)
    func sameContentIsStoredOnce(engine: StorageEngineKind) throws {
        try withDatabase(engine) { database, _ in
            let content = Data("twice".utf8)
            try database.saveDocument(MutableDocument(id: "a").setBlob(Blob(contentType: "t", data: content), forKey: "b"))
            try database.saveDocument(MutableDocument(id: "b").setBlob(Blob(contentType: "t", data: content), forKey: "b"))
            #expect(try attachmentFiles(database).count == 1)
        }
    }

    @Test(arguments: StorageEngineKind.allCases)
    func missingOrCorruptBlobFilesAreClearErrors(engine: StorageEngineKind) throws {
        try withDatabase(engine) { database, _ in
            try database.saveDocument(MutableDocument(id: "a").setBlob(Blob(contentType: "t", data: Data("one".utf8)), forKey: "b"))
            try database.saveDocument(MutableDocument(id: "c").setBlob(Blob(contentType: "t", data: Data("two".utf8)), forKey: "b"))
            let folder = (try #require(database.path) as NSString).appendingPathComponent("Attachments")
            let files = try attachmentFiles(database).map { (folder as NSString).appendingPathComponent($0) }
            #expect(files.count == 2)
            let blobA = try #require(database.document(withID: "a")?.blob(forKey: "b"))
            let blobC = try #require(database.document(withID: "c")?.blob(forKey: "b"))
            let fileA = files.first { $0.hasSuffix((blobA.digest ?? "").dropFirst(5).replacingOccurrences(of: "/", with: "_") + ".blob") }
            let fileC = files.first { $0 != fileA }
            try FileManager.default.removeItem(atPath: try #require(fileA))
            try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: try #require(fileC))
            try Data("TWO".utf8).write(to: URL(fileURLWithPath: try #require(fileC)))
            #expect(blobA.content == nil)
            #expect { try blobA.contentData() } throws: { error in
                let message = (error as? CouchbaseLiteError)?.message ?? ""
                return message.contains(blobA.digest ?? "?")
            }
            #expect { try blobC.contentData() } throws: { ($0 as? CouchbaseLiteError) != nil }
        }
    }

    @Test(arguments: StorageEngineKind.allCases)
    func compactionKeepsReferencedBlobsOnly(engine: StorageEngineKind) throws {
        try withDatabase(engine) { database, _ in
            let kept = MutableDocument(id: "kept").setBlob(Blob(contentType: "t", data: Data("keep".utf8)), forKey: "b")
            let dropped = MutableDocument(id: "dropped").setBlob(Blob(contentType: "t", data: Data("drop".utf8)), forKey: "b")
            try database.saveDocument(kept)
            try database.saveDocument(dropped)
            #expect(try attachmentFiles(database).count == 2)
            try database.purgeDocument(withID: "dropped")
            try database.compact()
            #expect(try attachmentFiles(database).count == 1)
            #expect(database.document(withID: "kept")?.blob(forKey: "b")?.content == Data("keep".utf8))
        }
    }

    @Test(arguments: StorageEngineKind.allCases)
    func concurrentBlobSavesAllLand(engine: StorageEngineKind) async throws {
        let directory = try TemporaryDirectory()
        let database = try Database(name: "blobs", config: engine.config(in: directory))
        defer { try? database.close() }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for task in 0..<6 {
                group.addTask {
                    for index in 0..<10 {
                        let content = Data("blob \(task)-\(index % 5)".utf8)
                        let doc = MutableDocument(id: "doc-\(task)-\(index)")
                            .setBlob(Blob(contentType: "text/plain", data: content), forKey: "b")
                        try database.saveDocument(doc)
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(database.count == 60)
        #expect(try attachmentFiles(database).count == 30)
        #expect(database.document(withID: "doc-3-7")?.blob(forKey: "b")?.content == Data("blob 3-2".utf8))
    }

    @Test func blobsOfACouchbaseLite20DatabaseRead() throws {
        let directory = try TemporaryDirectory()
        try Fixtures.copy("v2/android200-sqlite/android-sqlite.cblite2", into: directory)
        let config = DatabaseConfiguration()
        config.directory = directory.path
        let database = try Database(name: "android-sqlite", config: config)
        defer { try? database.close() }
        #expect(database.count == 2)
        for number in 1...2 {
            let doc = try #require(database.document(withID: "doc\(number)"))
            #expect(doc.string(forKey: "key") == "\(number)")
            let blob = try #require(doc.blob(forKey: "attach\(number)"))
            #expect(blob.content == Data("attach\(number)".utf8))
            #expect(blob.contentType == "text/plain", "the pre-GA content-type spelling is read")
        }
    }

    @Test(arguments: StorageEngineKind.allCases)
    func legacyAttachmentsReadAsBlobs(engine: StorageEngineKind) throws {
        try withDatabase(engine) { database, _ in
            let content = Data("avatar bytes".utf8)
            // Store the content, then refer to it the 1.x / Sync Gateway way.
            let holder = MutableDocument(id: "holder").setBlob(Blob(contentType: "image/png", data: content), forKey: "b")
            try database.saveDocument(holder)
            let digest = try #require(holder.blob(forKey: "b")?.digest)
            let doc = MutableDocument(id: "legacy").setValue(
                ["avatar": ["digest": digest, "length": content.count, "content_type": "image/png",
                            "revpos": 1, "stub": true]], forKey: "_attachments")
            try database.saveDocument(doc)
            let blob = try #require(database.document(withID: "legacy")?.dictionary(forKey: "_attachments")?.blob(forKey: "avatar"))
            #expect(blob.content == content)
            #expect(blob.contentType == "image/png")
        }
    }
}

/// A document made from JSON that names a blob by its metadata can be edited and saved again
/// when the database holds that content, and gets a clear error when it does not.
@Suite(.ownThreads) struct BlobMetadataInJSONTests {
    @Test(arguments: StorageEngineKind.allCases)
    func aBlobNamedInJSONCanBeSavedAfterAnEdit(engine: StorageEngineKind) throws {
        try withDatabase(engine) { database, _ in
            let original = MutableDocument(id: "with-blob")
            original.setBlob(Blob(contentType: "text/plain", data: Data("hello".utf8)), forKey: "file")
            try database.saveDocument(original)
            let metadata = try #require(database.document(withID: "with-blob")?.blob(forKey: "file")?.properties)
            let json = String(decoding: try JSONSerialization.data(withJSONObject: ["file": metadata, "n": 1]), as: UTF8.self)

            let copy = try MutableDocument(id: "copy", json: json)
            copy.setInt(2, forKey: "n")
            try database.saveDocument(copy)
            #expect(database.document(withID: "copy")?.blob(forKey: "file")?.content == Data("hello".utf8))

            let missing = json.replacingOccurrences(of: metadata["digest"] as? String ?? "?",
                                                    with: "sha1-AAAAAAAAAAAAAAAAAAAAAAAAAAA=")
            let dangling = try MutableDocument(id: "dangling", json: missing)
            dangling.setInt(3, forKey: "n")
            #expect(errorCode { try database.saveDocument(dangling) } == .notFound)
            #expect(database.document(withID: "dangling") == nil)
        }
    }
}
