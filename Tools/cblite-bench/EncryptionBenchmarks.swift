import CouchbaseLiteSwift
import Foundation
import LiteStorage

/// `cblite-bench encryption`: an encrypted database against a plaintext one on the same engine
/// (issue 41's target: ≤ 1.3×), importing and reading the travel data set through the public
/// API on each engine, and writing and reading blobs.
enum EncryptionBenchmarks: BenchmarkArea {
    static let name = "encryption"
    static let summary = "Encrypted vs plaintext database: import and read the travel data set on each engine; blobs."

    static let key = EncryptionKey.key(Data((0..<32).map { UInt8($0) }))

    static func run(_ options: BenchmarkOptions) throws -> BenchmarkReport {
        let documents = try DocumentsBenchmarks.travelDocuments()
        var report = BenchmarkReport(area: name)
        let scratch = try Scratch()
        for engine in [CouchbaseLiteSwift.StorageEngine.sqlite, .rocksdb] {
            try measureDocuments(engine, documents: documents, scratch: scratch, options: options, into: &report)
        }
        try measureBlobs(scratch: scratch, options: options, into: &report)
        report.notes.append("Travel data set (\(documents.count) JSON documents), fresh databases created untimed, import "
                            + "includes closing; the encrypted database uses a raw 32-byte key (no password derivation "
                            + "timed). Blobs: \(blobCount) documents with a \(blobSize / 1_024) KB blob each, saved in one "
                            + "batch (each blob is flushed to disk as it is written), then every blob read back. "
                            + "Pairs alternate which runs first.")
        return report
    }

    private static func measureDocuments(_ engine: CouchbaseLiteSwift.StorageEngine, documents: [(id: String, json: String)], scratch: Scratch,
                                         options: BenchmarkOptions, into report: inout BenchmarkReport) throws {
        let label = engine == .sqlite ? "SQLite" : "RocksDB"
        var encryptedFolder = "", plainFolder = ""
        var encrypted: Database?, plain: Database?
        let importPairs = try Stopwatch.pairedTimes(iterations: options.iterations, prepareOurs: {
            encryptedFolder = try scratch.freshFolder()
            encrypted = try open(in: encryptedFolder, engine: engine, key: key)
        }, prepareBaseline: {
            plainFolder = try scratch.freshFolder()
            plain = try open(in: plainFolder, engine: engine, key: nil)
        }, ours: {
            guard let database = encrypted else { return }
            try DocumentsBenchmarks.importAll(into: database, documents: documents)
            try database.close()
            encrypted = nil
        }, baseline: {
            guard let database = plain else { return }
            try DocumentsBenchmarks.importAll(into: database, documents: documents)
            try database.close()
            plain = nil
        })
        let (encryptedImport, plainImport) = importPairs.medians
        let readEncrypted = try open(in: encryptedFolder, engine: engine, key: key)
        defer { try? readEncrypted.close() }
        let readPlain = try open(in: plainFolder, engine: engine, key: nil)
        defer { try? readPlain.close() }
        var found = 0
        let (encryptedRead, plainRead) = try Stopwatch.pairedMedians(iterations: options.iterations, ours: {
            found = 0
            for (id, _) in documents where readEncrypted.document(withID: id) != nil { found += 1 }
        }, baseline: {
            for (id, _) in documents where readPlain.document(withID: id) == nil {
                throw StorageError(.notFound, "plaintext database lost \(id)")
            }
        })
        guard found == documents.count else { throw StorageError(.notFound, "read \(found) of \(documents.count)") }
        let query = "SELECT META().id, name FROM _ WHERE type = 'hotel' AND country = 'France'"
        let (encryptedScan, plainScan) = try Stopwatch.pairedMedians(iterations: options.iterations, ours: {
            _ = try readEncrypted.createQuery(query).execute().allResults()
        }, baseline: {
            _ = try readPlain.createQuery(query).execute().allResults()
        })
        report.rows += [
            BenchmarkRow(workload: "\(label) encrypted: import \(documents.count) docs, batches of \(DocumentsBenchmarks.batchSize)",
                         ours: encryptedImport, baselineName: "\(label) plaintext", baseline: plainImport, maximumRatio: 1.3),
            BenchmarkRow(workload: "\(label) encrypted: read all by ID", ours: encryptedRead,
                         baselineName: "\(label) plaintext", baseline: plainRead, maximumRatio: 1.3),
            BenchmarkRow(workload: "\(label) encrypted: query scan (hotels in France)", ours: encryptedScan,
                         baselineName: "\(label) plaintext", baseline: plainScan, maximumRatio: 1.3),
        ]
        report.notes.append("\(label) import ratios per pair, lowest to highest: \(importPairs.pairRatioSpread).")
    }

    static let blobCount = 100
    static let blobSize = 64 * 1_024

    private static func measureBlobs(scratch: Scratch, options: BenchmarkOptions,
                                     into report: inout BenchmarkReport) throws {
        var generator = SystemRandomNumberGenerator()
        let contents = (0..<blobCount).map { _ in Data((0..<blobSize).map { _ in UInt8.random(in: 0...255, using: &generator) }) }
        var encrypted: Database?, plain: Database?
        func write(_ database: Database?) throws {
            guard let database else { return }
            try database.inBatch {
                for (index, content) in contents.enumerated() {
                    let document = MutableDocument(id: "blob-\(index)")
                    document.setBlob(Blob(contentType: "application/octet-stream", data: content), forKey: "file")
                    try database.saveDocument(document)
                }
            }
        }
        let writes = try Stopwatch.pairedTimes(iterations: options.iterations, prepareOurs: {
            try encrypted?.close()
            encrypted = try open(in: try scratch.freshFolder(), engine: .sqlite, key: key)
        }, prepareBaseline: {
            try plain?.close()
            plain = try open(in: try scratch.freshFolder(), engine: .sqlite, key: nil)
        }, ours: { try write(encrypted) }, baseline: { try write(plain) })
        defer {
            try? encrypted?.close()
            try? plain?.close()
        }
        func readAll(_ database: Database?) throws {
            guard let database else { return }
            for index in 0..<blobCount {
                guard database.document(withID: "blob-\(index)")?.blob(forKey: "file")?.content?.count == blobSize else {
                    throw StorageError(.notFound, "blob-\(index) was not read back whole")
                }
            }
        }
        let (encryptedRead, plainRead) = try Stopwatch.pairedMedians(iterations: options.iterations,
                                                                       ours: { try readAll(encrypted) },
                                                                       baseline: { try readAll(plain) })
        let (encryptedWrite, plainWrite) = writes.medians
        report.rows += [
            BenchmarkRow(workload: "blobs encrypted: save \(blobCount) × \(blobSize / 1_024) KB", ours: encryptedWrite,
                         baselineName: "blobs plaintext", baseline: plainWrite, maximumRatio: 1.3),
            BenchmarkRow(workload: "blobs encrypted: read \(blobCount) × \(blobSize / 1_024) KB", ours: encryptedRead,
                         baselineName: "blobs plaintext", baseline: plainRead, maximumRatio: 1.3),
        ]
    }

    private static func open(in folder: String, engine: CouchbaseLiteSwift.StorageEngine, key: EncryptionKey?) throws -> Database {
        let config = DatabaseConfiguration()
        config.directory = folder
        config.storageEngine = engine
        config.encryptionKey = key
        return try Database(name: "travel", config: config)
    }
}
