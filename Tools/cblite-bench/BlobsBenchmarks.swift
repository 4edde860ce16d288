import BlobStore
import Crypto
import Foundation

/// The blob store streaming a large blob in and out: the extra memory it needs (the issue's
/// bound is 32 MB for a 200 MB blob) and its throughput against plain `FileHandle` I/O with
/// swift-crypto's SHA-1 doing the same work.
enum BlobsBenchmarks: BenchmarkArea {
    static let name = "blobs"
    static let summary = "Streams a 200 MB blob into the blob store and back; extra memory and throughput."

    /// The bound on the extra resident memory while streaming a 200 MB blob.
    static let memoryBound = 32 * 1024 * 1024
    static let chunkSize = BlobStore.defaultChunkSize

    static func run(_ options: BenchmarkOptions) throws -> BenchmarkReport {
        let byteCount = (options.quick ? 20 : 200) * 1024 * 1024
        let megabytes = byteCount / (1024 * 1024)
        let scratch = FileManager.default.temporaryDirectory
            .appendingPathComponent("cblite-bench-blobs-\(ProcessInfo.processInfo.processIdentifier)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }

        var report = BenchmarkReport(area: name)
        // First, before the timed runs allocate anything: the memory a stream round trip needs.
        report.notes.append(try measureMemory(byteCount: byteCount, scratch: scratch))

        let storeDirectory = scratch.appendingPathComponent("Attachments")
        let baselineFile = scratch.appendingPathComponent("baseline.bin")
        let reset = {
            try? FileManager.default.removeItem(at: storeDirectory)
            try? FileManager.default.removeItem(at: baselineFile)
        }

        var key: BlobKey?
        let oursWrite = try Stopwatch.median(iterations: options.iterations, setup: reset) { _ in
            key = try BlobStore(directory: storeDirectory)
                .write(from: GeneratedInputStream(byteCount: byteCount), chunkSize: chunkSize)
        }
        var baselineDigest: [UInt8] = []
        let baselineWrite = try Stopwatch.median(iterations: options.iterations, setup: reset) { _ in
            baselineDigest = try baselineWriteFile(baselineFile, byteCount: byteCount)
        }
        report.rows.append(BenchmarkRow(
            workload: "write \(megabytes) MB blob from a stream (SHA-1, fsync, rename)",
            ours: oursWrite, baselineName: "FileHandle write + SHA-1 + fsync", baseline: baselineWrite))

        // Leave one copy of each for the reads.
        let store = BlobStore(directory: storeDirectory)
        let storedKey = try store.write(from: GeneratedInputStream(byteCount: byteCount), chunkSize: chunkSize)
        _ = try baselineWriteFile(baselineFile, byteCount: byteCount)
        guard storedKey == key, storedKey.digest == baselineDigest else {
            throw Failure("blob store and baseline disagree on the digest of the same bytes")
        }

        let oursRead = try Stopwatch.median(iterations: options.iterations) {
            try readThroughStore(store, key: storedKey, byteCount: byteCount)
        }
        let baselineRead = try Stopwatch.median(iterations: options.iterations) {
            try baselineReadFile(baselineFile, expectedDigest: baselineDigest)
        }
        report.rows.append(BenchmarkRow(
            workload: "read \(megabytes) MB blob as a stream, verified",
            ours: oursRead, baselineName: "FileHandle read + SHA-1", baseline: baselineRead))

        for row in report.rows {
            report.notes.append(String(format: "%@: ours %.0f MB/s, baseline %.0f MB/s.", row.workload,
                                       Double(megabytes) / row.ours.seconds,
                                       Double(megabytes) / row.baseline.seconds))
        }
        report.notes.append("No throughput target is set by the issue; the memory bound is its target.")
        return report
    }

    /// Streams one blob in and out and reports the rise of the process's peak resident memory.
    private static func measureMemory(byteCount: Int, scratch: URL) throws -> String {
        let store = BlobStore(directory: scratch.appendingPathComponent("MemoryAttachments"))
        defer { try? FileManager.default.removeItem(at: store.directory) }
        // Resetting the peak makes the figure independent of what ran before in this process.
        let resetPeak = ProcessMemory.resetPeak()
        guard let before = ProcessMemory.current() else {
            return "extra resident memory: not measured (/proc/self/status unreadable)"
        }
        let key = try store.write(from: GeneratedInputStream(byteCount: byteCount), chunkSize: chunkSize)
        try readThroughStore(store, key: key, byteCount: byteCount)
        guard let after = ProcessMemory.current() else {
            return "extra resident memory: not measured (/proc/self/status unreadable)"
        }
        let extra = after.peak - before.resident
        let verdict = extra < memoryBound ? "within" : "OVER"
        return String(format: "extra resident memory writing a %d MB blob from a stream and reading it back "
            + "as a stream: %.1f MB (VmHWM %.1f MB − VmRSS before %.1f MB%@); bound 32 MB: %@.",
            byteCount / (1024 * 1024), megabytesOf(extra), megabytesOf(after.peak), megabytesOf(before.resident),
            resetPeak ? ", peak reset first" : ", peak not resettable: run `blobs` first", verdict)
    }

    private static func megabytesOf(_ bytes: Int) -> Double { Double(bytes) / (1024 * 1024) }

    private static func readThroughStore(_ store: BlobStore, key: BlobKey, byteCount: Int) throws {
        let reader = try store.makeReader(for: key, expectedLength: Int64(byteCount))
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: chunkSize, alignment: 16)
        defer { buffer.deallocate() }
        var total = 0
        while true {
            let count = try reader.read(into: buffer)
            if count == 0 { break }
            total += count
        }
        guard total == byteCount else { throw Failure("read \(total) bytes, expected \(byteCount)") }
    }

    private static func baselineWriteFile(_ url: URL, byteCount: Int) throws -> [UInt8] {
        guard FileManager.default.createFile(atPath: url.path, contents: nil) else {
            throw Failure("cannot create \(url.path)")
        }
        let handle = try FileHandle(forWritingTo: url)
        defer { try? handle.close() }
        let stream = GeneratedInputStream(byteCount: byteCount)
        stream.open()
        defer { stream.close() }
        var hasher = Insecure.SHA1()
        var chunk = Data(count: chunkSize)
        while true {
            let count = chunk.withUnsafeMutableBytes { buffer in
                guard let base = buffer.bindMemory(to: UInt8.self).baseAddress else { return -1 }
                return stream.read(base, maxLength: chunkSize)
            }
            if count <= 0 { break }
            let bytes = chunk.prefix(count)
            try handle.write(contentsOf: bytes)
            hasher.update(data: bytes)
        }
        try handle.synchronize()
        return Array(hasher.finalize())
    }

    private static func baselineReadFile(_ url: URL, expectedDigest: [UInt8]) throws {
        let handle = try FileHandle(forReadingFrom: url)
        defer { try? handle.close() }
        var hasher = Insecure.SHA1()
        while let chunk = try handle.read(upToCount: chunkSize), !chunk.isEmpty {
            hasher.update(data: chunk)
        }
        guard Array(hasher.finalize()) == expectedDigest else {
            throw Failure("baseline read a different digest")
        }
    }

    /// A blob benchmark that could not run as intended.
    struct Failure: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }
}
