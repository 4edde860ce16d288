import CouchbaseLiteSwift
import DatabaseConversion
import DatabaseTools
import Foundation
import LiteDatabase
import Testing
import TestSupport

/// Converting a database in place (through `DatabaseConfiguration.storageEngine`) keeps its
/// data, and a crash at any step leaves a database that opens with everything in it.
@Suite(.ownThreads) struct InPlaceConversionTests {
    private static let registry = DatabaseLocation.registry

    private func config(_ directory: TemporaryDirectory, _ engine: StorageEngineKind?) -> DatabaseConfiguration {
        let config = DatabaseConfiguration()
        config.directory = directory.path
        config.storageEngine = engine.map { $0 == .sqlite ? .sqlite : .rocksdb }
        return config
    }

    /// Makes database "app" with 30 documents, one with a blob, and an expiration.
    private func makeDatabase(_ engine: StorageEngineKind, in directory: TemporaryDirectory) throws {
        let database = try Database(name: "app", config: config(directory, engine))
        defer { try? database.close() }
        try database.inBatch {
            for index in 0..<30 {
                try database.saveDocument(MutableDocument(id: "doc-\(index)", data: ["n": index]))
            }
        }
        let document = MutableDocument(id: "with-blob")
        document.setValue(Blob(contentType: "text/plain", data: Data("attached".utf8)), forKey: "file")
        try database.saveDocument(document)
        try database.setDocumentExpiration(withID: "doc-5", expiration: Date(timeIntervalSince1970: 4_102_444_800))
    }

    /// Opens "app" with `engine` (nil: whatever its files are) and checks every document is there.
    private func expectComplete(_ directory: TemporaryDirectory, opening engine: StorageEngineKind?,
                                isStoredWith expected: StorageEngineKind,
                                sourceLocation: SourceLocation = #_sourceLocation) throws {
        let database = try Database(name: "app", config: config(directory, engine))
        defer { try? database.close() }
        #expect(database.storageEngine == (expected == .sqlite ? .sqlite : .rocksdb), sourceLocation: sourceLocation)
        #expect(database.count == 31, sourceLocation: sourceLocation)
        #expect(database.document(withID: "doc-29")?.int(forKey: "n") == 29, sourceLocation: sourceLocation)
        let blob = database.document(withID: "with-blob")?.blob(forKey: "file")
        #expect(blob?.content == Data("attached".utf8), sourceLocation: sourceLocation)
        #expect(database.getDocumentExpiration(withID: "doc-5") == Date(timeIntervalSince1970: 4_102_444_800),
                sourceLocation: sourceLocation)
    }

    private func bundlePath(_ directory: TemporaryDirectory) -> String {
        DatabaseBundle(name: "app", directory: directory.path).path
    }

    @Test(arguments: StorageEngineKind.allCases)
    func configuredEngineConvertsTheDatabaseOnOpen(engine: StorageEngineKind) throws {
        try withTemporaryDirectory { directory in
            try makeDatabase(engine, in: directory)
            try expectComplete(directory, opening: engine.other, isStoredWith: engine.other)
            let names = try FileManager.default.contentsOfDirectory(atPath: bundlePath(directory))
            #expect(!names.contains(engine.engine.fileName))
            #expect(!names.contains(InPlaceConversion.markerName))
            #expect(!names.contains { $0.hasSuffix(InPlaceConversion.buildingSuffix) })
            try expectComplete(directory, opening: nil, isStoredWith: engine.other)
        }
    }

    @Test(arguments: StorageEngineKind.allCases, InPlaceConversion.Step.allCases)
    func crashAtAnyStepLeavesAUsableDatabase(engine: StorageEngineKind, step: InPlaceConversion.Step) throws {
        try withTemporaryDirectory { directory in
            try makeDatabase(engine, in: directory)
            let bundle = bundlePath(directory)
            let original = URL(fileURLWithPath: engine.engine.dataFilePath(inBundle: bundle))
            let isSideFile = { (name: String) in
                name.hasSuffix("-shm") || name.hasSuffix("-wal") || name.hasPrefix("LOG")
            }
            let before = engine == .sqlite ? try Data(contentsOf: original)
                                           : Data("\(try FolderSnapshot(original, ignoring: isSideFile))".utf8)
            let crash = #expect(throws: InPlaceConversion.InjectedFault.self) {
                try InPlaceConversion.convert(bundlePath: bundle, to: engine.other.engine, registry: Self.registry) {
                    if $0 == step { throw InPlaceConversion.InjectedFault(step: $0) }
                }
            }
            #expect(crash?.step == step)
            let committed = step == .renamed || step == .originalDeleted
            if !committed {
                let after = engine == .sqlite ? try Data(contentsOf: original)
                                              : Data("\(try FolderSnapshot(original, ignoring: isSideFile))".utf8)
                #expect(after == before, "the original data file is untouched before the commit point")
            }
            // The next open (with no engine configured) finishes or undoes the conversion.
            try expectComplete(directory, opening: nil, isStoredWith: committed ? engine.other : engine)
            let names = try FileManager.default.contentsOfDirectory(atPath: bundle)
            #expect(!names.contains(InPlaceConversion.markerName))
            #expect(!names.contains { $0.hasSuffix(InPlaceConversion.buildingSuffix) })
            // And asking for the other engine again completes it.
            try expectComplete(directory, opening: engine.other, isStoredWith: engine.other)
        }
    }

    @Test(arguments: StorageEngineKind.allCases)
    func databaseOpenElsewhereIsNotConverted(engine: StorageEngineKind) throws {
        try withTemporaryDirectory { directory in
            try makeDatabase(engine, in: directory)
            let open = try Database(name: "app", config: config(directory, engine))
            defer { try? open.close() }
            let busy = #expect(throws: CouchbaseLiteError.self) { try Database(name: "app", config: config(directory, engine.other)) }
            #expect(busy?.code == .busy)
            #expect(open.count == 31)
            #expect(open.document(withID: "doc-3") != nil)
        }
    }

    /// A closed but still referenced `Database` must not lend its stale shared-key table to the
    /// file that replaces its engine's file.
    @Test(arguments: StorageEngineKind.allCases)
    func convertingThereAndBackKeepsNewPropertyNames(engine: StorageEngineKind) throws {
        try withTemporaryDirectory { directory in
            let first = try Database(name: "app", config: config(directory, engine))
            try first.saveDocument(MutableDocument(id: "a", data: ["alpha": 1]))
            try first.close()
            let second = try Database(name: "app", config: config(directory, engine.other))
            try second.saveDocument(MutableDocument(id: "b", data: ["beta": 2, "gamma": 3]))
            try second.close()
            let third = try Database(name: "app", config: config(directory, engine))
            defer { try? third.close() }
            #expect(third.document(withID: "b")?.int(forKey: "gamma") == 3)
            #expect(third.document(withID: "a")?.int(forKey: "alpha") == 1)
            try third.saveDocument(MutableDocument(id: "c", data: ["delta": 4]))
            #expect(third.document(withID: "c")?.int(forKey: "delta") == 4)
            #expect(third.document(withID: "b")?.int(forKey: "beta") == 2)
            withExtendedLifetime(first) {}
            withExtendedLifetime(second) {}
        }
    }

    @Test func recoveryRefusesADamagedMarker() throws {
        try withTemporaryDirectory { directory in
            try makeDatabase(.sqlite, in: directory)
            let bundle = bundlePath(directory)
            try Data("garbage".utf8).write(to: URL(fileURLWithPath: bundle + InPlaceConversion.markerName))
            let error = #expect(throws: DatabaseToolsError.self) {
                try BundleRecovery.recover(bundlePath: bundle, registry: Self.registry)
            }
            #expect(error?.message.contains(InPlaceConversion.markerName) == true)
        }
    }

    @Test func convertingToTheSameEngineDoesNothing() throws {
        try withTemporaryDirectory { directory in
            try makeDatabase(.rocksdb, in: directory)
            let bundle = URL(fileURLWithPath: bundlePath(directory))
            let isLog = { (name: String) in name.contains("LOG") }
            let before = try FolderSnapshot(bundle, ignoring: isLog)
            try InPlaceConversion.convert(bundlePath: bundle.path, to: StorageEngineKind.rocksdb.engine,
                                          registry: Self.registry)
            #expect(try FolderSnapshot(bundle, ignoring: isLog) == before)
        }
    }
}
