import CouchbaseLiteSwift
import Foundation
import Testing
import TestSupport

/// The guide's "Document" chapter: initializers, mutability, typed accessors, batch
/// operations and 1.x attachments, on the travel sample with both engines.
@Suite(.ownThreads) struct DocumentExamples {
    @Test(arguments: StorageEngineKind.allCases)
    func initializerSavesANewDocumentWithAGeneratedID(engine: StorageEngineKind) throws {
        try withTravelSample(engine) { database in
            // tag::initializer[]
            let newTask = MutableDocument()
                .setString("task", forKey: "type")
                .setString("todo", forKey: "owner")
                .setDate(Date(), forKey: "createdAt")
            try database.saveDocument(newTask)
            // end::initializer[]
            let saved = try #require(database.document(withID: newTask.id))
            #expect(!newTask.id.isEmpty)
            #expect(saved.string(forKey: "type") == "task")
            #expect(saved.string(forKey: "owner") == "todo")
            #expect(saved.date(forKey: "createdAt") != nil)
            #expect(database.count == UInt64(TravelSample.documentCount + 1))
        }
    }

    @Test(arguments: StorageEngineKind.allCases)
    func mutableCopyIsSavedAsANewRevision(engine: StorageEngineKind) throws {
        try withTravelSample(engine) { database in
            // The guide edits a document "xyz": make it a copy of a travel-sample hotel.
            let hotel = try #require(database.document(withID: "hotel_1"))
            try database.saveDocument(MutableDocument(id: "xyz", data: hotel.toDictionary()))
            let before = try #require(database.document(withID: "xyz")?.sequence)
            try run(database)
            let after = try #require(database.document(withID: "xyz"))
            #expect(after.string(forKey: "name") == "apples")
            #expect(after.string(forKey: "city") == "Bakersfield")
            #expect(after.sequence > before)
            #expect(database.document(withID: "hotel_1")?.string(forKey: "name") == "The Padre Hotel")
        }

        func run(_ database: Database) throws {
            // tag::update-document[]
            guard let document = database.document(withID: "xyz") else { return }
            let mutableDocument = document.toMutable()
            mutableDocument.setString("apples", forKey: "name")
            try database.saveDocument(mutableDocument)
            // end::update-document[]
        }
    }

    @Test func typedAccessorsReadADateAndTheWholeDocument() throws {
        let newTask = MutableDocument()

        // tag::date-getter[]
        newTask.setValue(Date(), forKey: "createdAt")
        let date = newTask.date(forKey: "createdAt")
        // end::date-getter[]

        // tag::to-dictionary[]
        newTask.toDictionary() // returns a Dictionary<String, Any>
        // end::to-dictionary[]

        let read = try #require(date)
        #expect(abs(read.timeIntervalSinceNow) < 60)
        #expect(newTask.toDictionary()["createdAt"] is Date)
    }

    @Test(arguments: StorageEngineKind.allCases)
    func typedAccessorsReadTravelSampleValues(engine: StorageEngineKind) throws {
        try withTravelSample(engine) { database in
            let route = try #require(database.document(withID: "route_1"))
            #expect(route.string(forKey: "airlineid") == "airline_1")
            #expect(route.int(forKey: "stops") == 0)
            #expect(route.double(forKey: "distance") > 118 && route.double(forKey: "distance") < 119)
            #expect(route.array(forKey: "schedule")?.dictionary(at: 0)?.string(forKey: "flight") == "Q5188")
            #expect(route["schedule"][0]["flight"].string == "Q5188")
            let hotel = try #require(database.document(withID: "hotel_1"))
            #expect(hotel.boolean(forKey: "pets_ok"))
            #expect(!hotel.boolean(forKey: "free_internet"))
            #expect(hotel.array(forKey: "public_likes")?.count == 9)
            #expect(hotel.string(forKey: "missing") == nil)
        }
    }

    @Test(arguments: StorageEngineKind.allCases)
    func batchSavesElevenUsersInOneTransaction(engine: StorageEngineKind) throws {
        try withTravelSample(engine) { database in
            let notified = DispatchSemaphore(value: 0)
            let changes = Counter()
            let token = database.addChangeListener { change in
                changes.add(change.documentIDs.count)
                notified.signal()
            }
            defer { database.removeChangeListener(withToken: token) }

            // tag::batch[]
            do {
                try database.inBatch {
                    for i in 0...10 {
                        let doc = MutableDocument()
                        doc.setValue("user", forKey: "type")
                        doc.setValue("user \(i)", forKey: "name")
                        doc.setBoolean(false, forKey: "admin")
                        try database.saveDocument(doc)
                        print("saved user document \(doc.string(forKey: "name")!)")
                    }
                }
            } catch let error {
                print(error.localizedDescription)
            }
            // end::batch[]

            #expect(database.count == UInt64(TravelSample.documentCount + 11))
            #expect(waitFor(notified))
            // One commit, so one change event naming the eleven documents.
            #expect(changes.events == 1)
            #expect(changes.total == 11)
        }
    }

    @Test(arguments: StorageEngineKind.allCases)
    func attachmentsOfAnUpgraded1xDatabaseReadAsBlobs(engine: StorageEngineKind) throws {
        try withTemporaryDirectory { directory in
            try Fixtures.copy("v1/android120/androiddb.cblite2", into: directory)
            let database = try Database(name: "androiddb", config: engine.config(in: directory))
            defer { try? database.close() }
            let document = try #require(database.document(withID: "doc1"))

            // tag::1x-attachment[]
            let attachments = document.dictionary(forKey: "_attachments")
            let avatar = attachments?.blob(forKey: "attach1")
            let content = avatar?.content
            // end::1x-attachment[]

            #expect(content?.count == 7)
            #expect(avatar?.digest == "sha1-P1i5kI/sosq745/9BDR7kEghKps=")
            #expect(database.storageEngine == engine.publicEngine)
        }
    }
}

/// Counts change events and the documents they name, from any queue.
final class Counter: @unchecked Sendable {
    // @unchecked: both fields are only touched under `lock`.
    private let lock = NSLock()
    private var eventCount = 0
    private var documentCount = 0

    func add(_ documents: Int) {
        lock.lock()
        defer { lock.unlock() }
        eventCount += 1
        documentCount += documents
    }

    var events: Int { lock.lock(); defer { lock.unlock() }; return eventCount }
    var total: Int { lock.lock(); defer { lock.unlock() }; return documentCount }
}
