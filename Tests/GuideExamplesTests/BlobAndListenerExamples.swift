import CouchbaseLiteSwift
import Foundation
import Testing
import TestSupport

/// The guide's "Blobs" section and its document change listener.
@Suite(.ownThreads) struct BlobAndListenerExamples {
    /// Stands in for the guide's image: the bytes of a real file.
    private func avatarData() throws -> Data {
        try Fixtures.data("fleece/1person.fleece")
    }

    @Test(arguments: StorageEngineKind.allCases)
    func blobIsSavedWithTheDocumentAndReadBack(engine: StorageEngineKind) throws {
        try withTravelSample(engine) { database in
            let newTask = MutableDocument()
            var image: Data?
            let imageData = try avatarData() // on iOS: UIImageJPEGRepresentation(UIImage(named: "avatar.jpg")!, 1)!

            // tag::blob[]
            let blob = Blob(contentType: "image/jpeg", data: imageData)
            newTask.setBlob(blob, forKey: "avatar")
            try database.saveDocument(newTask)

            if let taskBlob = newTask.blob(forKey: "avatar") {
                image = taskBlob.content
            }
            // end::blob[]

            #expect(image == imageData)
            let saved = try #require(database.document(withID: newTask.id)?.blob(forKey: "avatar"))
            #expect(saved.content == imageData)
            #expect(saved.contentType == "image/jpeg")
            #expect(saved.length == UInt64(imageData.count))
            #expect(saved.digest?.hasPrefix("sha1-") == true)
        }
    }

    /// The guide's listener reads `self.database` from a view controller: a plain class, not
    /// Sendable, captured by the listener. This must keep compiling in Swift 6 mode (decision
    /// General-10): the listener methods are `@preconcurrency`, so Swift 6 reports the capture as
    /// the one expected warning of this target ("capture of 'self' with non-Sendable type …",
    /// true: the listener runs on the database's queue), where without it it is an error.
    private final class ViewController {
        let database: Database

        init(database: Database) {
            self.database = database
        }

        @discardableResult
        func listen() -> ListenerToken {
            // tag::document-listener[]
            database.addDocumentChangeListener(withID: "user.john") { (change) in
                if let document = self.database.document(withID: change.documentID) {
                    print("Status :: \(document.string(forKey: "verified_account")!)")
                }
            }
            // end::document-listener[]
        }
    }

    @Test(arguments: StorageEngineKind.allCases)
    func documentListenerHearsChangesToItsDocumentOnly(engine: StorageEngineKind) throws {
        try withTravelSample(engine) { database in
            let screenToken = ViewController(database: database).listen()
            defer { database.removeChangeListener(withToken: screenToken) }
            let heard = DispatchSemaphore(value: 0)
            let changes = Counter()
            let token = database.addDocumentChangeListener(withID: "user.john") { change in
                changes.add(change.documentID == "user.john" ? 1 : 0)
                heard.signal()
            }
            defer { database.removeChangeListener(withToken: token) }

            let hotel = try #require(database.document(withID: "hotel_1")?.toMutable())
            try database.saveDocument(hotel.setString("other", forKey: "note"))
            try database.saveDocument(MutableDocument(id: "user.john").setString("yes", forKey: "verified_account"))

            #expect(waitFor(heard))
            #expect(changes.events == 1)
            #expect(changes.total == 1)
        }
    }
}
