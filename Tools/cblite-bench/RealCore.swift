import Foundation

/// The real Couchbase Lite 2.8 core in a child process (`Tools/interop/bench-litecore.c`, built
/// against the reference peer), for rows that compare ours with it on the same data in the same
/// run. Found through `CBL_REAL_CORE_BENCH` (the path of the built `bench-litecore`); without
/// it the rows are left out. The child times each command itself, so a pipe's round trip is
/// not counted on its side.
final class RealCore {
    private let process = Process()
    private let input = Pipe()
    private let output = Pipe()
    private var buffered: [UInt8] = []

    /// The built harness, when the environment names one.
    static var harnessPath: String? {
        guard let path = ProcessInfo.processInfo.environment["CBL_REAL_CORE_BENCH"], !path.isEmpty else { return nil }
        return path
    }

    /// Starts the harness on a new database `name` in `folder`.
    init(harness: String, folder: String, name: String) throws {
        process.executableURL = URL(fileURLWithPath: harness)
        process.arguments = [folder, name]
        process.standardInput = input
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
    }

    deinit {
        try? input.fileHandleForWriting.close()
        process.waitUntilExit()
    }

    /// Sends one command and returns the words of its "ok" answer.
    /// - Throws: `BenchmarkFailure` with the harness's error line.
    @discardableResult
    func send(_ command: String) throws -> [Substring] {
        try input.fileHandleForWriting.write(contentsOf: Data((command + "\n").utf8))
        let line = try readLine()
        guard line.hasPrefix("ok") else {
            throw BenchmarkFailure(description: "real core: \(command.prefix(80)): \(line)")
        }
        return line.split(separator: " ").dropFirst().map { $0 }
    }

    /// Runs a command whose answer is "ok NS" and returns NS as a duration.
    func timed(_ command: String) throws -> Duration {
        let words = try send(command)
        guard let ns = words.first.flatMap({ Int64($0) }) else {
            throw BenchmarkFailure(description: "real core: no time in the answer to \(command.prefix(80))")
        }
        return .nanoseconds(ns)
    }

    /// Runs the query in `slot` once: its row count and the core's time.
    func run(slot: Int, parameters: String? = nil) throws -> (rows: Int, time: Duration) {
        let words = try send("run \(slot)" + (parameters.map { " " + $0 } ?? ""))
        guard words.count == 2, let rows = Int(words[0]), let ns = Int64(words[1]) else {
            throw BenchmarkFailure(description: "real core: bad answer to run \(slot): \(words.joined(separator: " "))")
        }
        return (rows, .nanoseconds(ns))
    }

    /// Writes `documents` as the harness's "ID<TAB>JSON" lines to `path`.
    static func writeDocuments(_ documents: [(id: String, json: String)], to path: String) throws {
        var text = ""
        for (id, json) in documents { text += id + "\t" + json + "\n" }
        try text.write(toFile: path, atomically: false, encoding: .utf8)
    }

    private func readLine() throws -> String {
        let handle = output.fileHandleForReading
        while true {
            if let newline = buffered.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: buffered[..<newline], as: UTF8.self)
                buffered.removeSubrange(...newline)
                return line
            }
            // One read(2): FileHandle's read(upToCount:) waits for the whole count or the end.
            var chunk = [UInt8](repeating: 0, count: 65_536)
            let count = chunk.withUnsafeMutableBytes { read(handle.fileDescriptor, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { throw BenchmarkFailure(description: "real core: the harness ended") }
            buffered.append(contentsOf: chunk[..<count])
        }
    }
}
