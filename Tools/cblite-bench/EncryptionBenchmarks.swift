import CouchbaseLiteSwift
import Foundation
import LiteStorage

/// `cblite-bench encryption`: an encrypted database against a plaintext one on the same engine
/// (issue 41's target: ≤ 1.3×), importing and reading the travel data set through the public API.
enum EncryptionBenchmarks: BenchmarkArea {
    static let name = "encryption"
    static let summary = "Encrypted vs plaintext database: import and read the travel data set (SQLite engine)."

    static func run(_ options: BenchmarkOptions) throws -> BenchmarkReport {
        let documents = try DocumentsBenchmarks.travelDocuments()
        var report = BenchmarkReport(area: name)
        let scratch = try Scratch()
        let key = EncryptionKey.key(Data((0..<32).map { UInt8($0) }))
        var encryptedFolder = "", plainFolder = ""
        var encrypted: Database?, plain: Database?
        let importPairs = try Stopwatch.pairedTimes(iterations: options.iterations, prepareOurs: {
            encryptedFolder = try scratch.freshFolder()
            encrypted = try open(in: encryptedFolder, key: key)
        }, prepareBaseline: {
            plainFolder = try scratch.freshFolder()
            plain = try open(in: plainFolder, key: nil)
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
        let readEncrypted = try open(in: encryptedFolder, key: key)
        defer { try? readEncrypted.close() }
        let readPlain = try open(in: plainFolder, key: nil)
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
            BenchmarkRow(workload: "SQLite encrypted: import \(documents.count) docs, batches of \(DocumentsBenchmarks.batchSize)",
                         ours: encryptedImport, baselineName: "SQLite plaintext", baseline: plainImport, maximumRatio: 1.3),
            BenchmarkRow(workload: "SQLite encrypted: read all by ID", ours: encryptedRead,
                         baselineName: "SQLite plaintext", baseline: plainRead, maximumRatio: 1.3),
            BenchmarkRow(workload: "SQLite encrypted: query scan (hotels in France)", ours: encryptedScan,
                         baselineName: "SQLite plaintext", baseline: plainScan, maximumRatio: 1.3),
        ]
        report.notes.append("Travel data set (\(documents.count) JSON documents), fresh databases created untimed, import "
                            + "includes closing; the encrypted database uses a raw 32-byte key (no password derivation "
                            + "timed). Pairs alternate which runs first. Import ratios per pair, lowest to highest: "
                            + importPairs.pairRatioSpread + ".")
        return report
    }

    private static func open(in folder: String, key: EncryptionKey?) throws -> Database {
        let config = DatabaseConfiguration()
        config.directory = folder
        config.storageEngine = .sqlite
        config.encryptionKey = key
        return try Database(name: "travel", config: config)
    }
}
