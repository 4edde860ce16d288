import CouchbaseLiteSwift
import Foundation
import Testing
import TestSupport

/// "Choosing a storage engine": the engine is part of the configuration; naming another
/// engine than the files' converts the database in place when it opens.
@Suite(.ownThreads) struct StorageEngineExamples {
    @Test func openingWithAnotherEngineConvertsTheTravelSample() throws {
        try withTemporaryDirectory { directory in
            let folder = directory.path
            try Database.copy(fromPath: try TravelSample.prebuiltPath(.sqlite), toDatabase: "travel-sample",
                              withConfig: StorageEngineKind.sqlite.config(in: directory))

            // tag::choose-storage-engine[]
            let config = DatabaseConfiguration()
            config.directory = folder
            config.storageEngine = .rocksdb
            let database = try Database(name: "travel-sample", config: config)
            print("\(database.count) documents in \(database.storageEngine)")
            // end::choose-storage-engine[]

            #expect(database.storageEngine == .rocksdb)
            #expect(database.count == UInt64(TravelSample.documentCount))
            #expect(database.document(withID: "airline_10")?.string(forKey: "callsign") == "ALLEGHENY")
            try database.close()

            // Leaving the engine unset opens the files in whatever engine they are.
            let reopened = try Database(name: "travel-sample", config: DatabaseConfiguration(config: nil).with(directory: folder))
            #expect(reopened.storageEngine == .rocksdb)
            try reopened.close()
        }
    }
}

extension DatabaseConfiguration {
    fileprivate func with(directory: String) -> DatabaseConfiguration {
        self.directory = directory
        return self
    }
}
