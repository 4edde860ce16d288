import Foundation
import LiteStorage
import Testing

extension StorageConformance {
    /// Records, sequences, purge counts, expirations and byte keys survive close and reopen.
    package static func dataSurvivesReopen(_ engine: StorageEngineKind) throws {
        try withTemporaryDirectory { directory in
            let file = try engine.createDataFile(in: directory)
            let path = file.path
            let store = try file.keyStore("default")
            try insert(["a", "b", "c"], into: store, of: file)
            try file.write { txn in
                _ = try store.purge("b", in: txn)
                try store.setExpiration("c", to: 42, in: txn)
                try file.byteKeyStore("index").put([9], [8], in: txn)
            }
            try file.close()

            let reopened = try engine.open(path)
            defer { try? reopened.close() }
            let again = try reopened.keyStore("default")
            #expect(try again.enumerate().collect().map(\.key) == ["a", "c"])
            #expect(try again.lastSequence() == 3)
            #expect(try again.purgeCount() == 1)
            #expect(try again.expiration(of: "c") == 42)
            #expect(try reopened.byteKeyStore("index").get([9]) == [8])
            #expect(try reopened.write { txn in try again.set(Record(key: "d"), ifSequence: 0, in: txn) } == 4)
        }
    }

    /// A file opened read-only reads but refuses writes and new stores.
    package static func readOnlyFileRefusesWrites(_ engine: StorageEngineKind) throws {
        try withTemporaryDirectory { directory in
            let file = try engine.createDataFile(in: directory)
            let path = file.path
            try insert(["a"], into: try file.keyStore("default"), of: file)
            try file.close()

            let readOnly = try engine.open(path, readOnly: true)
            defer { try? readOnly.close() }
            #expect(readOnly.isReadOnly)
            let store = try readOnly.keyStore("default")
            #expect(try store.get("a") != nil)
            #expect(throws: StorageError.readOnly) { try readOnly.write { txn in try store.set(Record(key: "b"), ifSequence: 0, in: txn) } }
            #expect(throws: StorageError.notFound) { try readOnly.keyStore("missing") }
        }
    }

    /// Using a closed file is a clear error, and closing twice is harmless.
    package static func closedFileRefusesUse(_ engine: StorageEngineKind) throws {
        try withTemporaryDirectory { directory in
            let file = try engine.createDataFile(in: directory)
            let store = try file.keyStore("default")
            try file.close()
            try file.close()
            #expect(throws: StorageError.closed) { try store.get("a") }
            #expect(throws: StorageError.closed) { try file.write { _ in } }
        }
    }

    /// Opening a missing file without `create` is `notFound` and creates nothing.
    package static func missingFileIsNotCreatedWithoutCreate(_ engine: StorageEngineKind) throws {
        try withTemporaryDirectory { directory in
            let path = engine.dataFilePath(in: directory)
            #expect(throws: StorageError.notFound) { try engine.open(path) }
            #expect(!FileManager.default.fileExists(atPath: path))
        }
    }

    /// The engine recognises its own files and not the other engine's.
    package static func engineRecognisesOnlyItsOwnFiles(_ engine: StorageEngineKind) throws {
        try withTemporaryDirectory { directory in
            let file = try engine.createDataFile(in: directory)
            try file.close()
            #expect(engine.engine.recognises(fileAt: file.path))
            #expect(!engine.other.engine.recognises(fileAt: file.path))
            #expect(engine.engine.exists(at: file.path))
            try engine.engine.delete(at: file.path)
            #expect(!engine.engine.exists(at: file.path))
        }
    }

    /// Compacting keeps the data.
    package static func compactKeepsData(_ file: any DataFile) throws {
        let store = try file.keyStore("default")
        try insert((0..<200).map { "k\($0)" }, into: store, of: file)
        try file.write { txn in for index in 0..<150 { _ = try store.purge("k\(index)", in: txn) } }
        try file.compact()
        #expect(try store.recordCount() == 50)
        #expect(try store.get("k199") != nil)
    }
}

extension StorageConformance {
    /// Closing a file while an enumerator is open is safe: the cursor finishes or fails cleanly,
    /// and once it is released the file reopens.
    package static func closingWithOpenEnumeratorIsSafe(_ engine: StorageEngineKind) throws {
        try withTemporaryDirectory { directory in
            let file = try engine.createDataFile(in: directory)
            let store = try file.keyStore("default")
            try insert(["a", "b", "c"], into: store, of: file)
            let cursor = try store.enumerate()
            #expect(try cursor.next()?.key == "a")
            try file.close()
            _ = try? cursor.collect()
            cursor.close()
            let reopened = try engine.open(file.path)
            defer { try? reopened.close() }
            #expect(try reopened.keyStore("default").recordCount() == 3)
        }
    }
}
