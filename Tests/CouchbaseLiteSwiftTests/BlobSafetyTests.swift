import CouchbaseLiteSwift
import Foundation
import Testing
import TestSupport

/// A blob shared between documents saved at the same time, and blobs kept in sets.
@Suite(.ownThreads) struct BlobSafetyTests {
    /// Two documents holding one stream blob, saved on two threads at once: the stream must be
    /// read once, whole, and both documents must refer to its full content.
    @Test(arguments: StorageEngineKind.allCases)
    func oneStreamBlobSavedFromTwoThreadsIsReadOnce(engine: StorageEngineKind) throws {
        try withDatabase(engine) { database, _ in
            let content = Data((0..<(512 * 1024)).map { UInt8(truncatingIfNeeded: $0 &* 31) })
            for round in 0..<4 {
                let blob = Blob(contentType: "application/octet-stream", contentStream: InputStream(data: content))
                let threads = ["a", "b"].map { name in
                    startThread { () throws -> Bool in
                        let document = MutableDocument(id: "\(name)-\(round)")
                        document.setBlob(blob, forKey: "file")
                        try database.saveDocument(document)
                        return true
                    }
                }
                for thread in threads {
                    let saved = try thread.wait()
                    #expect(saved)
                }
                for name in ["a", "b"] {
                    let saved = database.document(withID: "\(name)-\(round)")?.blob(forKey: "file")
                    #expect(saved?.length == UInt64(content.count))
                    #expect(saved?.content == content)
                }
            }
        }
    }

    /// A set holding a stream blob still finds it after the save gave it a digest, and an equal
    /// data blob hashes alike.
    @Test(arguments: StorageEngineKind.allCases)
    func aBlobKeepsItsPlaceInASetAcrossTheSave(engine: StorageEngineKind) throws {
        try withDatabase(engine) { database, _ in
            let content = Data("same bytes".utf8)
            let streamed = Blob(contentType: "text/plain", contentStream: InputStream(data: content))
            let blobs: Set<Blob> = [streamed]
            let document = MutableDocument(id: "doc")
            document.setBlob(streamed, forKey: "file")
            try database.saveDocument(document)
            #expect(blobs.contains(streamed))
            #expect(blobs.contains(Blob(contentType: "text/plain", data: content)))
        }
    }
}
