import CRocksDB
import CSQLite
import Foundation
import LiteStorage
import RocksDBStorage
import SQLiteStorage

/// `cblite-bench storage`: each engine against its raw C API doing the same work — bulk insert
/// in transactions of 1,000, random reads by key, scan by sequence.
enum StorageBenchmarks: BenchmarkArea {
    static let name = "storage"
    static let summary = "Storage engines vs raw SQLite (same schema) and raw RocksDB write batches."

    static let batchSize = 1_000
    static let bodySize = 1_024

    /// The data set: keys, a 22-byte version (a binary revision ID's size) and 1 KB bodies.
    struct DataSet {
        let keys: [String]
        let version: [UInt8]
        let bodies: [[UInt8]]
        let readOrder: [Int]

        init(count: Int) {
            keys = (0..<count).map { String(format: "doc-%07d", $0) }
            var state: UInt64 = 42
            func next() -> UInt64 {
                state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                return state >> 33
            }
            version = [2] + (0..<21).map { _ in UInt8(truncatingIfNeeded: next()) }
            bodies = (0..<count).map { _ in (0..<bodySize).map { _ in UInt8(truncatingIfNeeded: next()) } }
            var order = Array(0..<count)
            for index in stride(from: order.count - 1, to: 0, by: -1) {
                order.swapAt(index, Int(next() % UInt64(index + 1)))
            }
            readOrder = order
        }
    }

    static func run(_ options: BenchmarkOptions) throws -> BenchmarkReport {
        let count = options.quick ? 10_000 : 100_000
        let data = DataSet(count: count)
        var report = BenchmarkReport(area: name)
        let engines: [(String, any StorageEngine, any RawStorage.Type)] = [
            ("SQLite", SQLiteEngine(), RawSQLite.self), ("RocksDB", RocksDBEngine(), RawRocksDB.self),
        ]
        for (label, engine, raw) in engines {
            report.rows += try measure(label, engine: engine, raw: raw, data: data, iterations: options.iterations)
        }
        report.notes.append("\(count) records of \(bodySize) bytes; inserts in transactions of \(batchSize); "
                            + "raw baselines use the same schema/layout, pragmas/options and durability "
                            + "(SQLite WAL + synchronous=normal, RocksDB WAL written, not fsynced, per batch).")
        return report
    }

    private static func measure(_ label: String, engine: any StorageEngine, raw: any RawStorage.Type,
                                data: DataSet, iterations: Int) throws -> [BenchmarkRow] {
        let scratch = try Scratch()
        var ourPath = ""
        var rawPath = ""
        let (ourInsert, rawInsert) = try Stopwatch.pairedMedians(iterations: iterations, ours: {
            let path = try scratch.fresh(engine.fileName)
            let file = try engine.open(at: path, options: DataFileOptions(create: true))
            let store = try file.keyStore("default")
            for start in stride(from: 0, to: data.keys.count, by: batchSize) {
                try file.write { txn in
                    for index in start..<min(start + batchSize, data.keys.count) {
                        try store.set(Record(key: data.keys[index], version: data.version, body: data.bodies[index]),
                                      ifSequence: 0, in: txn)
                    }
                }
            }
            try file.close()
            ourPath = path
        }, baseline: {
            let path = try scratch.fresh(engine.fileName)
            try raw.insert(path: path, data: data, batchSize: batchSize)
            rawPath = path
        })

        let file = try engine.open(at: ourPath, options: DataFileOptions())
        let store = try file.keyStore("default")
        let reader = try raw.openReader(path: rawPath)
        var checksum = 0
        // One untimed pass each warms the OS page cache and the engine's caches alike.
        let warmUpCount = min(data.readOrder.count, 20_000)
        for index in data.readOrder.prefix(warmUpCount) {
            checksum &+= try store.get(data.keys[index])?.body.count ?? 0
            checksum &+= try reader.read(data.keys[index])
        }
        let (ourReads, rawReads) = try Stopwatch.pairedMedians(iterations: iterations, ours: {
            for index in data.readOrder { checksum &+= try store.get(data.keys[index])?.body.count ?? 0 }
        }, baseline: {
            for index in data.readOrder { checksum &+= try reader.read(data.keys[index]) }
        })
        let (ourScan, rawScan) = try Stopwatch.pairedMedians(iterations: iterations, ours: {
            let cursor = try store.enumerate(since: 0, options: RecordEnumerationOptions())
            while let record = try cursor.next() { checksum &+= record.body.count }
        }, baseline: {
            checksum &+= try reader.scanBySequence()
        })
        try file.close()
        reader.close()
        if checksum == 0 { throw StorageError(.unexpectedError, "benchmark read nothing") }

        let rawName = label == "SQLite" ? "raw SQLite C API" : "raw RocksDB C API"
        return [
            BenchmarkRow(workload: "\(label): insert \(data.keys.count) × 1 KB, txn of \(batchSize)",
                         ours: ourInsert, baselineName: rawName, baseline: rawInsert, maximumRatio: 1.3),
            BenchmarkRow(workload: "\(label): \(data.keys.count) random reads by key", ours: ourReads,
                         baselineName: rawName, baseline: rawReads, maximumRatio: 1.3),
            BenchmarkRow(workload: "\(label): scan all by sequence", ours: ourScan,
                         baselineName: rawName, baseline: rawScan, maximumRatio: nil),
        ]
    }
}

