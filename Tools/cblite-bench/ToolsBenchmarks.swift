import DatabaseConversion
import DatabaseTools
import Foundation
import LiteDatabase
import LiteStorage

/// `cblite-convert`'s exact copy against the engines' ordinary write path doing the same
/// number of records, and verification against reading both files. The issue sets no target:
/// the rows show what exactness (own sequences, counters) and verification cost.
enum ToolsBenchmarks: BenchmarkArea {
    static let name = "tools"
    static let summary = "Engine conversion (exact copy) and verification against plain reads and writes."

    struct Failure: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    static func run(_ options: BenchmarkOptions) throws -> BenchmarkReport {
        let documents = options.quick ? 2_000 : 20_000
        let scratch = FileManager.default.temporaryDirectory
            .appendingPathComponent("cblite-bench-tools-\(ProcessInfo.processInfo.processIdentifier)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        var report = BenchmarkReport(area: name)
        for (from, to) in [("sqlite", "rocksdb"), ("rocksdb", "sqlite")] {
            let source = try DatabaseLocation(path: scratch.appendingPathComponent("source-\(from).cblite2").path)
            try makeSource(source, engine: from, documents: documents)
            let destination = try DatabaseLocation(path: scratch.appendingPathComponent("copy.cblite2").path)
            let removeCopy = { try? FileManager.default.removeItem(atPath: destination.path) }
            let ours = try Stopwatch.median(iterations: options.iterations, setup: removeCopy) { _ in
                try EngineConverter.convert(source: source, destination: destination, options: .init(engine: to))
            }
            let baseline = try Stopwatch.median(iterations: options.iterations, setup: removeCopy) { _ in
                try plainCopy(source, to: destination, engine: to)
            }
            report.rows.append(BenchmarkRow(
                workload: "convert \(documents) docs \(from) → \(to)", ours: ours,
                baselineName: "enumerate + KeyStore.set", baseline: baseline))

            try EngineConverter.convert(source: source, destination: destination, options: .init(engine: to, force: true))
            let sourceFile = try open(source)
            let copyFile = try open(destination)
            defer { try? sourceFile.close(); try? copyFile.close() }
            let verify = try Stopwatch.median(iterations: options.iterations) {
                _ = try StorageVerifier.compare(sourceFile, copyFile)
            }
            let readBoth = try Stopwatch.median(iterations: options.iterations) {
                for file in [sourceFile, copyFile] {
                    for name in try file.keyStoreNames() {
                        let cursor = try file.keyStore(name).enumerate(since: 0, options: .init(includeDeleted: true))
                        while try cursor.next() != nil {}
                    }
                }
            }
            report.rows.append(BenchmarkRow(
                workload: "verify \(documents) docs \(from) vs \(to)", ours: verify,
                baselineName: "enumerate both files", baseline: readBoth))
        }
        report.notes.append("No target in the issue; conversion includes blob transfer (none here) and counters.")
        return report
    }

    private static func makeSource(_ location: DatabaseLocation, engine: String, documents: Int) throws {
        let core = try location.open(.create(engine: engine))
        defer { try? core.close() }
        for start in stride(from: 0, to: documents, by: 1_000) {
            try core.inTransaction { _ in
                for index in start..<min(start + 1_000, documents) {
                    try core.saveRevision(id: String(format: "doc-%06d", index), base: nil, policy: .lastWriteWins) {
                        $0.beginDictionary()
                        $0.writeKey("index")
                        $0.writeInt(Int64(index))
                        $0.writeKey("text")
                        $0.writeString(String(repeating: "lorem ipsum ", count: 10))
                        $0.endDictionary()
                    }
                }
            }
        }
    }

    private static func open(_ location: DatabaseLocation) throws -> any DataFile {
        guard let engine = location.engine else { throw Failure("no database at \(location.path)") }
        return try engine.open(at: engine.dataFilePath(inBundle: location.path), options: DataFileOptions(readOnly: true))
    }

    /// The same records written through the ordinary `set` (new sequences, no counters).
    private static func plainCopy(_ source: DatabaseLocation, to destination: DatabaseLocation, engine: String) throws {
        let from = try open(source)
        defer { try? from.close() }
        try FileManager.default.createDirectory(atPath: destination.path, withIntermediateDirectories: true)
        let target = try DatabaseLocation.engine(named: engine)
        let to = try target.open(at: target.dataFilePath(inBundle: destination.path), options: DataFileOptions(create: true))
        defer { try? to.close() }
        for name in try from.keyStoreNames() {
            let store = try to.keyStore(name)
            let cursor = try from.keyStore(name).enumerate(since: 0, options: .init(includeDeleted: true))
            var done = false
            while !done {
                try to.write { txn in
                    for _ in 0..<2_000 {
                        guard let record = try cursor.next() else {
                            done = true
                            return
                        }
                        try store.set(record, ifSequence: nil, in: txn)
                    }
                }
            }
        }
    }
}
