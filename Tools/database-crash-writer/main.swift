// database-crash-writer WORKLOAD ENGINE DIRECTORY [URL]
//
// Runs a document workload on the database "crash" in DIRECTORY until it is killed, for the
// database crash tests and the soak test. After each committed transaction n it prints
// "committed n" (unbuffered).
//
//   blobs | indexes | purge   DatabaseCrashWorkload (Tests/TestSupport): saves with blobs;
//                             with a value and a full-text index; with deletions, purges and
//                             compactions. The test recomputes the state after the last
//                             committed transaction and compares.
//   soak URL                  saves "child-<n>" documents while a continuous push replicator
//                             sends them to URL (the soak test's listener).
//   rekey                     after 200 documents with blobs, saves "rekey-<n>" (with a blob)
//                             and then changes the encryption key, cycling through
//                             RekeyCrashWorkload.keys (none, A, B); opens with whichever key works.
import CouchbaseLiteSwift
import Foundation
import TestSupport

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("database-crash-writer: \(message)\n".utf8))
    exit(2)
}

func report(_ transaction: Int) {
    FileHandle.standardOutput.write(Data("committed \(transaction)\n".utf8))
}

/// Runs transactions of `kind` after the last committed one, forever.
func runWorkload(_ kind: DatabaseCrashWorkload.Kind, database: Database) throws -> Never {
    if kind == .indexes {
        try database.createIndex(IndexBuilder.valueIndex(items: ValueIndexItem.property("category")), withName: "category")
        try database.createIndex(IndexBuilder.fullTextIndex(items: FullTextIndexItem.property("text")), withName: "text")
    }
    var transaction = database.document(withID: DatabaseCrashWorkload.counterID)?.int(forKey: "n") ?? 0
    var live = DatabaseCrashWorkload.expectedDocuments(after: transaction, kind: kind)
    while true {
        transaction += 1
        let operations = DatabaseCrashWorkload.operations(transaction, kind: kind, live: live)
        try database.inBatch {
            for operation in operations {
                switch operation {
                case let .save(id, state):
                    let document = database.document(withID: id)?.toMutable() ?? MutableDocument(id: id)
                    document.setInt(state.revision, forKey: "revision")
                    document.setString(state.category, forKey: "category")
                    document.setString(state.text, forKey: "text")
                    document.setBlob(Blob(contentType: "application/octet-stream",
                                          data: Data(DatabaseCrashWorkload.blobContent(state.blobSeed))), forKey: "blob")
                    try database.saveDocument(document)
                    live[id] = state
                case let .delete(id):
                    if let document = database.document(withID: id) { try database.deleteDocument(document) }
                    live[id] = nil
                case let .purge(id):
                    try database.purgeDocument(withID: id)
                    live[id] = nil
                }
            }
            let counter = database.document(withID: DatabaseCrashWorkload.counterID)?.toMutable()
                ?? MutableDocument(id: DatabaseCrashWorkload.counterID)
            counter.setInt(transaction, forKey: "n")
            try database.saveDocument(counter)
        }
        report(transaction)
        if DatabaseCrashWorkload.compactsAfter(transaction, kind: kind) { try database.compact() }
    }
}

/// Saves numbered documents while pushing them continuously to `url`.
func runSoakChild(database: Database, url: URL) throws -> Never {
    let config = ReplicatorConfiguration(database: database, target: URLEndpoint(url: url))
    config.replicatorType = .push
    config.continuous = true
    let replicator = Replicator(config: config)
    replicator.start()
    var number = database.document(withID: "child-counter")?.int(forKey: "n") ?? 0
    while true {
        number += 1
        let document = MutableDocument(id: "child-\(number)")
        document.setInt(number, forKey: "n")
        document.setString("c\(number % 7)", forKey: "category")
        document.setString("child", forKey: "writer")
        let counter = MutableDocument(id: "child-counter")
        counter.setInt(number, forKey: "n")
        try database.inBatch {
            try database.saveDocument(document)
            try database.saveDocument(counter)
        }
        report(number)
        // Pacing: a steady trickle, so the replicator has work across each kill.
        usleep(50_000)
    }
}

/// Saves a document, then changes the key, forever (the key-change crash test).
func runRekeyLoop(config: DatabaseConfiguration) throws -> Never {
    let keys = RekeyCrashWorkload.keys.map { $0.map(EncryptionKey.key) }
    func document(id: String, number: Int) -> MutableDocument {
        let document = MutableDocument(id: id, data: ["n": number, "text": RekeyCrashWorkload.text(number)])
        if RekeyCrashWorkload.hasBlob(id: id, number: number) {
            document.setBlob(Blob(contentType: "application/octet-stream",
                                  data: Data(RekeyCrashWorkload.blobContent(id: id))), forKey: "blob")
        }
        return document
    }
    var opened: (database: Database, keyIndex: Int)?
    for (index, key) in keys.enumerated() {
        config.encryptionKey = key
        if let database = try? Database(name: "crash", config: config) {
            opened = (database, index)
            break
        }
    }
    guard let (database, openedKeyIndex) = opened else { fail("no key opens the database") }
    var keyIndex = openedKeyIndex
    if database.document(withID: RekeyCrashWorkload.counterID) == nil {
        try database.inBatch {
            for number in 0..<RekeyCrashWorkload.initialDocuments {
                try database.saveDocument(document(id: "initial-\(number)", number: number))
            }
            try database.saveDocument(MutableDocument(id: RekeyCrashWorkload.counterID, data: ["n": 0]))
        }
    }
    var number = database.document(withID: RekeyCrashWorkload.counterID)?.int(forKey: "n") ?? 0
    while true {
        number += 1
        try database.inBatch {
            try database.saveDocument(document(id: "rekey-\(number)", number: number))
            try database.saveDocument(MutableDocument(id: RekeyCrashWorkload.counterID, data: ["n": number]))
        }
        report(number)
        keyIndex = (keyIndex + 1) % keys.count
        try database.changeEncryptionKey(keys[keyIndex])
        FileHandle.standardOutput.write(Data("rekeyed \(number) \(keyIndex)\n".utf8))
    }
}

let arguments = CommandLine.arguments
guard arguments.count >= 4 else { fail("usage: database-crash-writer blobs|indexes|purge|soak|rekey sqlite|rocksdb DIRECTORY [URL]") }
let config = DatabaseConfiguration()
config.directory = arguments[3]
switch arguments[2] {
case "sqlite": config.storageEngine = .sqlite
case "rocksdb": config.storageEngine = .rocksdb
default: fail("unknown engine \(arguments[2])")
}
do {
    if arguments[1] == "rekey" { try runRekeyLoop(config: config) }
    let database = try Database(name: "crash", config: config)
    if arguments[1] == "soak" {
        guard arguments.count == 5, let url = URL(string: arguments[4]) else { fail("soak needs the listener's URL") }
        try runSoakChild(database: database, url: url)
    }
    guard let kind = DatabaseCrashWorkload.Kind(rawValue: arguments[1]) else { fail("unknown workload \(arguments[1])") }
    try runWorkload(kind, database: database)
} catch {
    fail("\(error)")
}
