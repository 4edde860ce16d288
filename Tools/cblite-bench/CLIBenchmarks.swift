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
        // With the real tool at hand, the two starts alternate (the machine's speed at starting
        // processes drifts by tens of per cent within minutes); the real one's database is
        // made below, before this row is measured.
        let reference = ProcessInfo.processInfo.environment["CBLITE_REFERENCE"]
        let referenceInput = scratch.appendingPathComponent("travel.json").path
        let referenceDB = scratch.appendingPathComponent("real.cblite2").path
        var realStart: Duration?
        let start: Duration
        if let reference {
            try FileManager.default.copyItem(atPath: input, toPath: referenceInput)
            try runProcess(reference, ["cp", referenceInput, referenceDB])
            let (ours, real) = try Stopwatch.pairedMedians(
                iterations: iterations * 3, ours: { try runProcess(cblite, ["info", ourDB]) },
                baseline: { try runProcess(reference, ["info", referenceDB]) })
            (start, realStart) = (ours, real)
        } else {
            start = try Stopwatch.median(iterations: iterations * 3) { try runProcess(cblite, ["info", ourDB]) }
        }
        report.rows.append(BenchmarkRow(workload: "process start: cblite info", ours: start,
                                        baselineName: "the issue's bound", baseline: .milliseconds(10), maximumRatio: 1))
        if let realStart {
            report.rows.append(BenchmarkRow(workload: "process start: cblite info", ours: start,
                                            baselineName: "real 2.8 cblite info", baseline: realStart, maximumRatio: 1))
        }

        // Growth: per-document time at 100,000 generated documents against 5,050 of the same
        // kind, and the peak memory of importing them (about 100 MB of JSON Lines).
        let large = options.quick ? 20_000 : 100_000
        let small = scratch.appendingPathComponent("small.jsonl").path
        let big = scratch.appendingPathComponent("large.jsonl").path
        try generatedLines(count: 5_050, into: small)
        try generatedLines(count: large, into: big)
        let bigBytes = (try? FileManager.default.attributesOfItem(atPath: big)[.size] as? Int) ?? 0
        var peak = 0
        let (largeTime, smallTime) = try Stopwatch.pairedMedians(
            iterations: max(3, options.iterations / 2), prepareOurs: remove(ourDB), prepareBaseline: remove(ourDB),
            ours: { peak = max(peak, try ChildProcess.run(cblite, ["import", ourDB, big, "--quiet"]).peakResident) },
            baseline: { try ChildProcess.run(cblite, ["import", ourDB, small, "--quiet"]) })
        report.rows.append(BenchmarkRow(
            workload: "per-document import time at \(large) docs", ours: largeTime / large,
            baselineName: "at 5050 docs", baseline: smallTime / 5_050, maximumRatio: 1.3))
        report.notes.append("Generated travel-like documents (fixed seed): \(large) of them are "
                            + "\(bigBytes / 1_000_000) MB of JSON Lines; peak resident memory of that `cblite import`: "
                            + "\(peak / 1_048_576) MiB.")
        remove(ourDB)()
        try runProcess(cblite, ["import", ourDB, input, "--quiet"])

        if let reference {
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
            if let realStart {
                report.rows.append(BenchmarkRow(workload: "real 2.8 process start: cblite info (not ours), alternating with ours",
                                                ours: realStart, baselineName: "the issue's bound", baseline: .milliseconds(10)))
            }
        }
        report.notes.append("Whole processes on the travel set (5050 JSON Lines, 8.7 MB), ours and the baseline alternating, "
                            + "a fresh database for every import. Targets from the speed issue: import ≤ 1.2× the sqlite3 "
                            + "shell, export ≤ 2.6× its SELECT, start under 10 ms. `CBLITE_REFERENCE=/path/to/real/cblite` "
                            + "adds Couchbase Lite 2.8's own tool.")
        return report
    }

    /// The `cblite` next to this executable.
    static func ourTool() throws -> String {
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

    private static func runProcess(_ executable: String, _ arguments: [String], stdin: String? = nil,
                                   stdout: String? = nil) throws {
        try ChildProcess.run(executable, arguments, stdin: stdin, stdout: stdout)
    }

    /// `count` travel-like documents (routes, hotels, airports in turn; fixed seed) as JSON Lines.
    static func generatedLines(count: Int, into path: String) throws {
        guard FileManager.default.createFile(atPath: path, contents: nil),
              let handle = FileHandle(forWritingAtPath: path) else {
            throw BenchmarkFailure(description: "cannot create \(path)")
        }
        defer { try? handle.close() }
        var state: UInt64 = 0x5DEE_CE66_D1CE_4E5B
        func next(_ bound: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(bound))
        }
        let words = ["harbour", "view", "grand", "central", "park", "river", "old", "town", "airport", "plaza",
                     "royal", "garden", "bay", "hill", "station", "north", "south", "inn", "lodge", "suites"]
        let cities = ["London", "Paris", "Nice", "Lyon", "San Francisco", "Los Angeles", "Seattle", "Bristol"]
        func phrase(_ length: Int) -> String { (0..<length).map { _ in words[next(words.count)] }.joined(separator: " ") }
        var text = ""
        for index in 0..<count {
            let city = cities[next(cities.count)]
            switch index % 3 {
            case 0:
                let stops = (0..<(1 + next(12))).map { _ in
                    #"{"flight":"AF\#(next(9_000))","utc":"\#(10 + next(14)):\#(10 + next(50)):00","day":\#(next(7))}"#
                }
                text += #"{"_id":"route_\#(index)","type":"route","airline":"AF","sourceairport":"\#(["CDG","LHR","SFO","NCE"][next(4)])","destinationairport":"\#(["LYS","SEA","LAX","BRS"][next(4)])","stops":\#(next(2)),"distance":\#(Double(next(900_000)) / 100),"schedule":[\#(stops.joined(separator: ","))]}"#
            case 1:
                let reviews = (0..<next(6)).map { _ in
                    #"{"author":"\#(phrase(2))","content":"\#(phrase(20 + next(60)))","ratings":{"Overall":\#(1 + next(5)),"Service":\#(1 + next(5))}}"#
                }
                text += #"{"_id":"hotel_\#(index)","type":"hotel","name":"\#(phrase(3))","city":"\#(city)","country":"France","description":"\#(phrase(30 + next(40)))","free_parking":\#(next(2) == 0),"geo":{"lat":\#(Double(next(180_000)) / 1000 - 90),"lon":\#(Double(next(360_000)) / 1000 - 180)},"reviews":[\#(reviews.joined(separator: ","))]}"#
            default:
                text += #"{"_id":"airport_\#(index)","type":"airport","airportname":"\#(phrase(2))","city":"\#(city)","faa":"\#(["CDG","LHR","SFO","NCE"][next(4)])","geo":{"alt":\#(next(3_000)),"lat":\#(Double(next(180_000)) / 1000 - 90),"lon":\#(Double(next(360_000)) / 1000 - 180)},"tz":"Europe/Paris"}"#
            }
            // About 1 KB a document in all, as the travel set's average.
            text.removeLast()
            text += #","notes":"\#(phrase(50 + next(60)))"}"# + "\n"
            if text.utf8.count > 1 << 20 {
                try handle.write(contentsOf: Data(text.utf8))
                text = ""
            }
        }
        try handle.write(contentsOf: Data(text.utf8))
    }
}
