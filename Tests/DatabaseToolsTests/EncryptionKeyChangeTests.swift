import CouchbaseLiteSwift
import DatabaseConversion
import DatabaseTools
import Foundation
import LiteDatabase
import LiteSupport
import Testing
import TestSupport

/// Changing a database's encryption key (issue 41): a crash at any step leaves a database that
/// the old key or the new one opens, with every document and blob, and the next open finishes
/// or undoes the change.
@Suite(.ownThreads) struct EncryptionKeyChangeTests {
    private static let registry = DatabaseLocation.registry
    private static let keyA = Data((0..<32).map { UInt8($0 * 3) })
    private static let keyB = Data((0..<32).map { UInt8(200 - $0) })

    private func config(_ directory: TemporaryDirectory, _ engine: StorageEngineKind, _ key: Data?) -> DatabaseConfiguration {
        engine.configuration(in: directory, key: key.map(EncryptionKey.key))
    }

    private func bundlePath(_ directory: TemporaryDirectory) -> String {
        DatabaseBundle(name: "app", directory: directory.path).path
    }

    private static func blobBytes(_ index: Int) -> Data { Data(String(repeating: "blob \(index) ", count: 700).utf8) }

    /// Makes database "app" under `key`: 40 documents, every eighth with a blob, and a value index.
    private func makeDatabase(_ engine: StorageEngineKind, _ key: Data?, in directory: TemporaryDirectory) throws {
        let database = try Database(name: "app", config: config(directory, engine, key))
        defer { try? database.close() }
        try database.inBatch {
            for index in 0..<40 {
                let document = MutableDocument(id: "doc-\(index)", data: ["n": index, "group": index % 4])
                if index % 8 == 0 {
                    document.setBlob(Blob(contentType: "text/plain", data: Self.blobBytes(index)), forKey: "file")
                }
                try database.saveDocument(document)
            }
        }
        try database.createIndex(IndexBuilder.valueIndex(items: ValueIndexItem.property("group")), withName: "groups")
    }

    /// Opens "app" under `key` and checks every document, blob and the index's answers.
    private func expectComplete(_ directory: TemporaryDirectory, _ engine: StorageEngineKind, _ key: Data?,
                                added: Int = 0, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let database = try Database(name: "app", config: config(directory, engine, key))
        defer { try? database.close() }
        #expect(database.count == UInt64(40 + added), sourceLocation: sourceLocation)
        for index in stride(from: 0, to: 40, by: 8) {
            #expect(database.document(withID: "doc-\(index)")?.blob(forKey: "file")?.content == Self.blobBytes(index),
                    sourceLocation: sourceLocation)
        }
        let rows = try database.createQuery("SELECT META().id FROM _ WHERE `group` = 3").execute().allResults()
        #expect(rows.count == 10 + added, sourceLocation: sourceLocation)
    }

    private func opens(_ directory: TemporaryDirectory, _ engine: StorageEngineKind, _ key: Data?) -> Bool {
        guard let database = try? Database(name: "app", config: config(directory, engine, key)) else { return false }  // allowed: the answer is whether it opens
        try? database.close()  // allowed: only opened to see whether the key fits
        return true
    }

    private func leftovers(_ bundle: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: bundle).filter {
            $0 == EncryptionKeyChange.markerName || $0.hasSuffix(EncryptionKeyChange.buildingSuffix) || $0.hasSuffix(".tmp")
        }
    }

    @Test(arguments: StorageEngineKind.allCases, [(nil, keyA), (keyA, keyB), (keyB, nil)] as [(Data?, Data?)])
    func aChangedKeyOpensTheSameDatabase(engine: StorageEngineKind, keys: (Data?, Data?)) throws {
        try withTemporaryDirectory { directory in
            try makeDatabase(engine, keys.0, in: directory)
            try EncryptionKeyChange.change(bundlePath: bundlePath(directory), registry: Self.registry,
                                           from: keys.0.flatMap { AES256Key(bytes: Array($0)) },
                                           to: keys.1.flatMap { AES256Key(bytes: Array($0)) })
            try expectComplete(directory, engine, keys.1)
            #expect(!opens(directory, engine, keys.0), "the old key no longer opens it")
            #expect(try leftovers(bundlePath(directory)) == [])
        }
    }

    @Test(arguments: StorageEngineKind.allCases, EncryptionKeyChange.Step.allCases)
    func aCrashAtAnyStepLeavesADatabaseOneKeyOpens(engine: StorageEngineKind, step: EncryptionKeyChange.Step) throws {
        try withTemporaryDirectory { directory in
            try makeDatabase(engine, Self.keyA, in: directory)
            let bundle = bundlePath(directory)
            let crash = #expect(throws: EncryptionKeyChange.InjectedFault.self) {
                try EncryptionKeyChange.change(bundlePath: bundle, registry: Self.registry,
                                               from: AES256Key(bytes: Array(Self.keyA)), to: AES256Key(bytes: Array(Self.keyB))) {
                    if $0 == step { throw EncryptionKeyChange.InjectedFault(step: $0) }
                }
            }
            #expect(crash?.step == step)
            let committed = [.committed, .dataFileReplaced, .blobsReplaced].contains(step)
            // The next open finishes or undoes the change: exactly one key fits.
            let (right, wrong) = committed ? (Self.keyB, Self.keyA) : (Self.keyA, Self.keyB)
            #expect(!opens(directory, engine, wrong))
            try expectComplete(directory, engine, right)
            #expect(try leftovers(bundle) == [])
        }
    }

    @Test(arguments: StorageEngineKind.allCases)
    func theWrongOldKeyChangesNothing(engine: StorageEngineKind) throws {
        try withTemporaryDirectory { directory in
            try makeDatabase(engine, Self.keyA, in: directory)
            let bundle = URL(fileURLWithPath: bundlePath(directory))
            let isLog = { (name: String) in name.hasPrefix("LOG") }
            let before = try FolderSnapshot(bundle, ignoring: isLog)
            #expect(throws: (any Error).self) {
                try EncryptionKeyChange.change(bundlePath: bundle.path, registry: Self.registry,
                                               from: AES256Key(bytes: Array(Self.keyB)), to: nil)
            }
            #expect(try FolderSnapshot(bundle, ignoring: isLog) == before)
            try expectComplete(directory, engine, Self.keyA)
        }
    }

    @Test func aDamagedMarkerIsReportedNotGuessed() throws {
        try withTemporaryDirectory { directory in
            try makeDatabase(.sqlite, Self.keyA, in: directory)
            let bundle = bundlePath(directory)
            try Data("SQLite\nhalf".utf8).write(to: URL(fileURLWithPath: bundle.pathAppending(EncryptionKeyChange.markerName)))
            let error = #expect(throws: DatabaseToolsError.self) {
                try BundleRecovery.recover(bundlePath: bundle, registry: Self.registry)
            }
            #expect(error?.message.contains(EncryptionKeyChange.markerName) == true)
        }
    }

    // MARK: Through the API

    @Test(arguments: StorageEngineKind.allCases)
    func anOpenDatabaseChangesItsKeyAndStaysUsable(engine: StorageEngineKind) throws {
        try withTemporaryDirectory { directory in
            try makeDatabase(engine, nil, in: directory)
            let database = try Database(name: "app", config: config(directory, engine, nil))
            let sawLaterSave = DispatchSemaphore(value: 0)
            let token = database.addChangeListener { change in
                if change.documentIDs.contains("after") { sawLaterSave.signal() }
            }
            try database.changeEncryptionKey(.key(Self.keyA))
            // Documents, blobs, queries and writes go on, through the reopened files.
            #expect(database.count == 40)
            #expect(database.document(withID: "doc-8")?.blob(forKey: "file")?.content == Self.blobBytes(8))
            try database.saveDocument(MutableDocument(id: "after", data: ["group": 3]))
            #expect(sawLaterSave.wait(timeout: .now() + 30) == .success, "a listener added before the change still hears")
            #expect(try database.createQuery("SELECT META().id FROM _ WHERE `group` = 3").execute().allResults().count == 11)
            try database.changeEncryptionKey(.password("second"))
            try database.changeEncryptionKey(.password("second"))  // the same key: nothing to do
            #expect(database.document(withID: "after") != nil)
            database.removeChangeListener(withToken: token)
            try database.close()
            #expect(!opens(directory, engine, nil) && !opens(directory, engine, Self.keyA))
            let reopened = try Database(name: "app", config: {
                let config = config(directory, engine, nil)
                config.encryptionKey = .password("second")
                return config
            }())
            defer { try? reopened.close() }
            #expect(reopened.count == 41)
            try reopened.changeEncryptionKey(nil)
            try reopened.close()
            try expectComplete(directory, engine, nil, added: 1)
        }
    }

    @Test(arguments: StorageEngineKind.allCases)
    func aKeyChangeWaitsForOtherConnectionsAndBatches(engine: StorageEngineKind) throws {
        try withTemporaryDirectory { directory in
            try makeDatabase(engine, Self.keyA, in: directory)
            let database = try Database(name: "app", config: config(directory, engine, Self.keyA))
            defer { try? database.close() }
            let other = try Database(name: "app", config: config(directory, engine, Self.keyA))
            let busy = #expect(throws: CouchbaseLiteError.self) { try database.changeEncryptionKey(.key(Self.keyB)) }
            #expect(busy?.code == .busy)
            // Still open, still under the old key.
            #expect(database.count == 40 && other.count == 40)
            try other.close()
            let inBatch = #expect(throws: CouchbaseLiteError.self) {
                try database.inBatch { try database.changeEncryptionKey(.key(Self.keyB)) }
            }
            #expect(inBatch?.code == .busy)
            let short = #expect(throws: CouchbaseLiteError.self) { try database.changeEncryptionKey(.key(Data(count: 8))) }
            #expect(short?.code == .invalidParameter)
            try database.changeEncryptionKey(.key(Self.keyB))
            #expect(database.count == 40)
        }
    }
}
