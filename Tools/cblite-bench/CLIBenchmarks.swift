import Foundation

/// Whole processes, as a user runs them: `cblite import`, `export` and `info` on the travel set
/// (5,050 JSON Lines, 8.7 MB) against SQLite's own `sqlite3` shell doing the same work, run
/// alternately in the same session. With `CBLITE_REFERENCE` naming Couchbase Lite 2.8's real
/// `cblite`, its `cp` is measured against the same baselines (informational rows).
///
/// The `cblite` measured is the one built beside this executable (`swift build -c release
/// --static-swift-stdlib`, as `make bench` does).
enum CLIBenchmarks: BenchmarkArea {
    static let name = "cli"
    static let summary = "cblite import/export/info as processes vs the sqlite3 shell doing the same (alternating runs)."

    /// The import baseline from the issue: load the lines, then a keyed table of checked JSON.
    private static func importScript(_ input: String) -> String {
        """
        CREATE TABLE raw(line TEXT);
        .separator "\\037" "\\n"
        .import \(input) raw
        BEGIN;
        CREATE TABLE docs(id TEXT PRIMARY KEY, body BLOB);
        INSERT INTO docs SELECT json_extract(line,'$._id'), json(line) FROM raw;
        COMMIT;
        """
    }

    static func run(_ options: BenchmarkOptions) throws -> BenchmarkReport {
        let iterations = max(options.iterations, 7)
        let scratch = FileManager.default.temporaryDirectory
            .appendingPathComponent("cblite-bench-cli-\(ProcessInfo.processInfo.processIdentifier)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let cblite = try ourTool()
        let sqlite3 = try tool("sqlite3")
        let input = scratch.appendingPathComponent("travel.jsonl").path
        try travelLines(into: input)
        let script = scratch.appendingPathComponent("import.sql").path
        try importScript(input).write(toFile: script, atomically: true, encoding: .utf8)
        let baselineDB = scratch.appendingPathComponent("baseline.db").path
        let ourDB = scratch.appendingPathComponent("ours.cblite2").path
        let output = scratch.appendingPathComponent("out.jsonl").path
        let remove = { (path: String) -> () -> Void in { _ = try? FileManager.default.removeItem(atPath: path) } }

        var report = BenchmarkReport(area: name)
        let importBaseline = { try runProcess(sqlite3, [baselineDB], stdin: script) }
        for engine in ["sqlite", "rocksdb"] {
            let (ours, baseline) = try Stopwatch.pairedMedians(
                iterations: iterations, prepareOurs: remove(ourDB), prepareBaseline: remove(baselineDB),
                ours: { try runProcess(cblite, ["import", ourDB, input, "--quiet", "--engine", engine]) },
                baseline: importBaseline)
            report.rows.append(BenchmarkRow(workload: "cblite import travel.jsonl (\(engine))", ours: ours,
                                            baselineName: "sqlite3 shell .import + json()", baseline: baseline,
                                            maximumRatio: 1.2))
        }
        // Both databases exist now (the last runs of each): export them.
        remove(ourDB)()
        try runProcess(cblite, ["import", ourDB, input, "--quiet"])
        let (exportOurs, exportBaseline) = try Stopwatch.pairedMedians(
            iterations: iterations,
            ours: { try runProcess(cblite, ["export", ourDB, output]) },
            baseline: { try runProcess(sqlite3, [baselineDB, "SELECT body FROM docs"], stdout: output) })
        report.rows.append(BenchmarkRow(workload: "cblite export (5050 docs → JSON Lines)", ours: exportOurs,
                                        baselineName: "sqlite3 SELECT body > file", baseline: exportBaseline,
                                        maximumRatio: 2.6))
        let start = try Stopwatch.median(iterations: iterations * 3) { try runProcess(cblite, ["info", ourDB]) }
        report.rows.append(BenchmarkRow(workload: "process start: cblite info", ours: start,
                                        baselineName: "the issue's bound", baseline: .milliseconds(10), maximumRatio: 1))

        if let reference = ProcessInfo.processInfo.environment["CBLITE_REFERENCE"] {
            let referenceInput = scratch.appendingPathComponent("travel.json").path
            try FileManager.default.copyItem(atPath: input, toPath: referenceInput)
            let referenceDB = scratch.appendingPathComponent("real.cblite2").path
            let (real, baseline) = try Stopwatch.pairedMedians(
                iterations: iterations, prepareOurs: remove(referenceDB), prepareBaseline: remove(baselineDB),
                ours: { try runProcess(reference, ["cp", referenceInput, referenceDB]) }, baseline: importBaseline)
            report.rows.append(BenchmarkRow(workload: "real 2.8 cblite cp travel.json → db (not ours)", ours: real,
                                            baselineName: "sqlite3 shell .import + json()", baseline: baseline))
            let (realExport, exportBase) = try Stopwatch.pairedMedians(
                iterations: iterations, prepareOurs: remove(referenceInput),
                ours: { try runProcess(reference, ["cp", referenceDB, referenceInput]) },
                baseline: { try runProcess(sqlite3, [baselineDB, "SELECT body FROM docs"], stdout: output) })
            report.rows.append(BenchmarkRow(workload: "real 2.8 cblite cp db → travel.json (not ours)", ours: realExport,
                                            baselineName: "sqlite3 SELECT body > file", baseline: exportBase))
            let realStart = try Stopwatch.median(iterations: iterations * 3) { try runProcess(reference, ["info", referenceDB]) }
            report.rows.append(BenchmarkRow(workload: "real 2.8 process start: cblite info (not ours)", ours: realStart,
                                            baselineName: "the issue's bound", baseline: .milliseconds(10)))
        }
        report.notes.append("Whole processes on the travel set (5050 JSON Lines, 8.7 MB), ours and the baseline alternating, "
                            + "a fresh database for every import. Targets from the speed issue: import ≤ 1.2× the sqlite3 "
                            + "shell, export ≤ 2.6× its SELECT, start under 10 ms. `CBLITE_REFERENCE=/path/to/real/cblite` "
                            + "adds Couchbase Lite 2.8's own tool.")
        return report
    }

    /// The `cblite` next to this executable.
    private static func ourTool() throws -> String {
        let me = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        let path = URL(fileURLWithPath: me).deletingLastPathComponent().appendingPathComponent("cblite").path
        guard FileManager.default.isExecutableFile(atPath: path) else {
            throw BenchmarkFailure(description: "no cblite beside cblite-bench (\(path)): run `swift build -c release --static-swift-stdlib` first")
        }
        return path
    }

    private static func tool(_ name: String) throws -> String {
        for directory in (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin").split(separator: ":") {
            let path = "\(directory)/\(name)"
            if FileManager.default.isExecutableFile(atPath: path) { return path }
        }
        throw BenchmarkFailure(description: "\(name) not found on PATH (make deps installs it)")
    }

    /// The four travel files as one JSON Lines file, as the issue measured.
    private static func travelLines(into path: String) throws {
        let folder = try DocumentsBenchmarks.fixturesFolder().appendingPathComponent("travel")
        var text = Data()
        for file in ["travel.airlines.jsonl", "travel.hotels.jsonl", "travel.routes.jsonl", "travel-sg.json"] {
            var part = try Data(contentsOf: folder.appendingPathComponent(file))
            if part.last != 0x0A { part.append(0x0A) }
            text.append(part)
        }
        try text.write(to: URL(fileURLWithPath: path))
    }

    /// Runs a process to completion; a non-zero exit is an error (with its stderr).
    private static func runProcess(_ executable: String, _ arguments: [String], stdin: String? = nil,
                                   stdout: String? = nil) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if let stdin { process.standardInput = FileHandle(forReadingAtPath: stdin) }
        if let stdout {
            guard FileManager.default.createFile(atPath: stdout, contents: nil) else { throw BenchmarkFailure(description: "cannot create \(stdout)") }
            process.standardOutput = FileHandle(forWritingAtPath: stdout)
        } else {
            process.standardOutput = FileHandle.nullDevice
        }
        let errors = Pipe()
        process.standardError = errors
        try process.run()
        let message = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw BenchmarkFailure(description: "\(executable) \(arguments.joined(separator: " ")) exited with \(process.terminationStatus): "
                          + String(decoding: message, as: UTF8.self))
        }
    }
}
