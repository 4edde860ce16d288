import CouchbaseLiteSwift
import Foundation

/// `cblite-bench query`'s rows beside the real Couchbase Lite 2.8 core (issue 39): the same
/// JSON queries on the same travel documents, ours through the public API on each engine, the
/// real core through its C API in a child process (``RealCore``), timed alternately in the same
/// run. Left out when `CBL_REAL_CORE_BENCH` names no harness.
extension QueryBenchmarks {
    /// A query run by both: `json` is given to `Database.createQuery(json:)` here and to
    /// `c4query_new2` there.
    struct RealCoreWorkload {
        var label: String
        var json: String
        /// Whether a value index serves it (target ≤ 0.7× rather than ≤ 1.0×).
        var indexed: Bool
    }

    /// The value indexes both sides get before the indexed rows, as (name, property paths).
    static let realCoreIndexes: [(name: String, paths: [String])] = [
        ("byCountry", ["country"]), ("byCountryCity", ["country", "city"]), ("byCity", ["city"]), ("byDistance", ["distance"]),
    ]

    static let unindexedWorkloads: [RealCoreWorkload] = [
        RealCoreWorkload(label: "unindexed collection = 'hotels' AND country = 'France'",
                         json: #"{"WHAT":[["._id"]],"WHERE":["AND",["=",[".collection"],"hotels"],["=",[".country"],"France"]]}"#,
                         indexed: false),
        RealCoreWorkload(label: "GROUP BY collection with COUNT(*)",
                         json: #"{"WHAT":[[".collection"],["COUNT()",["."]]],"GROUP_BY":[[".collection"]]}"#, indexed: false),
        RealCoreWorkload(label: "join routes → airline by ID",
                         json: #"{"WHAT":[[".airline.name"],[".route.destinationairport"]],"FROM":[{"AS":"route"},"#
                            + #"{"AS":"airline","ON":["=",[".airline._id"],[".route.airlineid"]]}],"#
                            + #""WHERE":["AND",["=",[".route.collection"],"routes"],["=",[".route.stops"],0]]}"#,
                         indexed: false),
    ]

    static let indexedWorkloads: [RealCoreWorkload] = [
        RealCoreWorkload(label: "indexed collection = 'hotels' AND country = 'France'",
                         json: #"{"WHAT":[["._id"]],"WHERE":["AND",["=",[".collection"],"hotels"],["=",[".country"],"France"]]}"#,
                         indexed: true),
        RealCoreWorkload(label: "compound index: country = 'United States' AND city = 'San Francisco'",
                         json: #"{"WHAT":[["._id"]],"WHERE":["AND",["=",[".country"],"United States"],["=",[".city"],"San Francisco"]]}"#,
                         indexed: true),
        RealCoreWorkload(label: "IN: country IN ('France', 'United Kingdom') AND collection = 'hotels'",
                         json: #"{"WHAT":[["._id"]],"WHERE":["AND",["IN",[".country"],["[]","France","United Kingdom"]],"#
                            + #"["=",[".collection"],"hotels"]]}"#,
                         indexed: true),
        RealCoreWorkload(label: "range: distance BETWEEN 1000 AND 1100",
                         json: #"{"WHAT":[["._id"]],"WHERE":["BETWEEN",[".distance"],1000,1100]}"#, indexed: true),
        RealCoreWorkload(label: "LIKE 'San%' on an indexed city",
                         json: #"{"WHAT":[["._id"]],"WHERE":["LIKE",[".city"],"San%"]}"#, indexed: true),
        RealCoreWorkload(label: "ORDER BY city LIMIT 10 where country = 'United States'",
                         json: #"{"WHAT":[["._id"],[".city"]],"WHERE":["=",[".country"],"United States"],"#
                            + #""ORDER_BY":[[".city"]],"LIMIT":10}"#,
                         indexed: true),
        RealCoreWorkload(label: "join French hotels → airports of their city through an index",
                         json: #"{"WHAT":[[".h.name"],[".a.airportname"]],"FROM":[{"AS":"h"},{"AS":"a","ON":["AND","#
                            + #"["=",[".a.city"],[".h.city"]],["=",[".a.collection"],"airports"]]}],"#
                            + #""WHERE":["AND",["=",[".h.collection"],"hotels"],["=",[".h.country"],"France"]]}"#,
                         indexed: true),
    ]

    /// The rows beside the real core, or none without a harness.
    static func realCoreRows(documents: [(id: String, json: String)], options: BenchmarkOptions,
                             scratch: Scratch) throws -> (rows: [BenchmarkRow], notes: [String]) {
        guard let harness = RealCore.harnessPath else { return ([], []) }
        let documentsPath = try scratch.fresh("travel.tsv")
        try RealCore.writeDocuments(documents, to: documentsPath)
        // A profile (`QUERY_PROFILE_ROW`) runs without the real core, so that a tool like valgrind, which
        // cannot start the child process, can watch ours alone.
        let profiling = ProcessInfo.processInfo.environment["QUERY_PROFILE_ROW"] != nil
            || ProcessInfo.processInfo.environment["QUERY_PROFILE_ALL"] != nil
        let realOrNone = profiling ? nil : try RealCore(harness: harness, folder: try scratch.freshFolder(), name: "real")
        try realOrNone?.send("import \(documentsPath)")
        // Under `QUERY_PROFILE_ALL`, the real core's side of the same profile: the harness's
        // commands for the same rows in the same order, written with the documents to
        // `QUERY_PROFILE_REAL_COMMANDS` (a folder), each row's runs followed by a failing `drop`
        // that marks its end.
        let profileAll = ProcessInfo.processInfo.environment["QUERY_PROFILE_ALL"].flatMap(Int.init)
        let realCommandsFolder = ProcessInfo.processInfo.environment["QUERY_PROFILE_REAL_COMMANDS"]
        var realCommands: [String] = []
        if let realCommandsFolder, profileAll != nil {
            try RealCore.writeDocuments(documents, to: realCommandsFolder + "/travel.tsv")
            realCommands.append("import \(realCommandsFolder)/travel.tsv")
        }
        var engines: [(String, Database)] = []
        defer { for (_, database) in engines { try? database.close() } }
        for (label, engine) in [("SQLite", StorageEngine.sqlite), ("RocksDB", .rocksdb)] {
            let config = DatabaseConfiguration()
            config.directory = try scratch.freshFolder()
            config.storageEngine = engine
            let database = try Database(name: "travel", config: config)
            for start in stride(from: 0, to: documents.count, by: 1_000) {
                try database.inBatch {
                    for (id, json) in documents[start..<min(start + 1_000, documents.count)] {
                        try database.saveDocument(try MutableDocument(id: id, json: json))
                    }
                }
            }
            // Checkpoints the load queued run now, not during the timed runs (and a profile
            // then meets the same WAL every time).
            database.waitForBackgroundWork()
            engines.append((label, database))
        }
        var rows: [BenchmarkRow] = []
        var spreads: [String] = []
        var slot = 0
        func compare(_ workloads: [RealCoreWorkload]) throws {
            let profiledRow = ProcessInfo.processInfo.environment["QUERY_PROFILE_ROW"]
            for workload in workloads {
                // A profile samples only its row.
                if let profiledRow, !workload.label.hasPrefix(profiledRow) { slot += 1; continue }
                try realOrNone?.send("query \(slot) \(workload.json)")
                if let profileAll, realCommandsFolder != nil {
                    realCommands.append("query \(slot) \(workload.json)")
                    realCommands += Array(repeating: "run \(slot)", count: profileAll)
                    realCommands.append("drop profile-boundary")
                }
                for (engine, database) in engines {
                    let query = try database.createQuery(json: workload.json)
                    // For a profiler: `QUERY_PROFILE_ROW=<start of a label> QUERY_PROFILE_LOOPS=N` runs
                    // only ours of that row, N times (on SQLite, or `QUERY_PROFILE_ENGINE=RocksDB`).
                    let profiledEngine = ProcessInfo.processInfo.environment["QUERY_PROFILE_ENGINE"] ?? "SQLite"
                    if let wanted = ProcessInfo.processInfo.environment["QUERY_PROFILE_ROW"], workload.label.hasPrefix(wanted),
                       engine == profiledEngine {
                        let loops = ProcessInfo.processInfo.environment["QUERY_PROFILE_LOOPS"].flatMap(Int.init) ?? 1_000
                        let clock = ContinuousClock()
                        // The fastest of ten rounds, for A/B comparisons on a machine whose speed drifts.
                        var fastest = Duration.seconds(1_000_000)
                        for _ in 0..<10 {
                            let elapsed = try clock.measure { for _ in 0..<max(1, loops / 10) { _ = try query.execute().allResults().count } }
                            fastest = min(fastest, elapsed)
                        }
                        let perRun = Double(fastest.components.attoseconds) / 1e12 + Double(fastest.components.seconds) * 1e6
                        throw BenchmarkFailure(description: "profiled \(loops) runs of \(workload.label), \(engine): "
                                               + "\(String(format: "%.1f", perRun / Double(max(1, loops / 10)))) µs a run (fastest tenth); no table")
                    }
                    if let loops = ProcessInfo.processInfo.environment["QUERY_PROFILE_ALL"].flatMap(Int.init) {
                        try profiledRuns(query, loops)
                        profileBoundary("\(workload.label), \(engine)")
                        continue
                    }
                    guard let real = realOrNone else { continue }
                    // `QUERY_EXPLAIN=1`: both plans, to see why a row is slow.
                    if ProcessInfo.processInfo.environment["QUERY_EXPLAIN"] != nil {
                        print("\(workload.label), \(engine):\n  ours: \(try query.explain())\n  real: "
                              + (try real.send("explain \(slot)")).joined(separator: " "))
                    }
                    var ourRows = 0, realRows = 0
                    let times = try Stopwatch.pairedTimes(iterations: options.iterations, ours: {
                        ourRows = try query.execute().allResults().count
                    }, selfTimedBaseline: {
                        let (count, time) = try real.run(slot: slot)
                        realRows = count
                        return time
                    })
                    guard ourRows == realRows else {
                        throw BenchmarkFailure(description: "\(workload.label): \(ourRows) rows here, \(realRows) in the real core")
                    }
                    let (ours, baseline) = times.medians
                    rows.append(BenchmarkRow(workload: "\(workload.label) (\(ourRows) rows), \(engine)", ours: ours,
                                             baselineName: "real 2.8 core", baseline: baseline,
                                             maximumRatio: workload.indexed ? 0.7 : 1.0))
                    spreads.append("\(workload.label), \(engine): \(times.pairRatioSpread)")
                }
                slot += 1
            }
        }
        try compare(unindexedWorkloads)
        for (name, paths) in realCoreIndexes {
            let spec = "[" + paths.map { #"[".\#($0)"]"# }.joined(separator: ",") + "]"
            try realOrNone?.send("index \(name) \(spec)")
            realCommands.append("index \(name) \(spec)")
            for (_, database) in engines {
                let items = paths.map { ValueIndexItem.expression(Expression.property($0)) }
                let index = items.count == 1 ? IndexBuilder.valueIndex(items: items[0])
                    : IndexBuilder.valueIndex(items: items[0], items[1])
                try database.createIndex(index, withName: name)
                database.waitForBackgroundWork()
            }
        }
        try compare(indexedWorkloads)
        if let realCommandsFolder, profileAll != nil {
            try (realCommands.joined(separator: "\n") + "\n").write(toFile: realCommandsFolder + "/commands", atomically: false,
                                                                    encoding: .utf8)
        }
        try profileWriteRows(engines: engines, documents: documents)
        guard let real = realOrNone else { return (rows, []) }

        // Creating a value index on every document.
        for (engine, database) in engines {
            let city = IndexBuilder.valueIndex(items: ValueIndexItem.expression(Expression.property("city")))
            let times = try Stopwatch.pairedTimes(iterations: options.iterations, prepareOurs: {
                try database.deleteIndex(forName: "byCity2")
            }, prepareBaseline: {
                try real.send("drop byCity2")
            }, ours: {
                try database.createIndex(city, withName: "byCity2")
            }, selfTimedBaseline: {
                try real.timed(#"index byCity2 [[".city"]]"#)
            })
            let (ours, baseline) = times.medians
            rows.append(BenchmarkRow(workload: "create a value index on city (\(documents.count) documents), \(engine)",
                                     ours: ours, baselineName: "real 2.8 core", baseline: baseline, maximumRatio: 1.0))
            spreads.append("index creation, \(engine): \(times.pairRatioSpread)")
            try database.deleteIndex(forName: "byCity2")
        }
        try real.send("drop byCity2")

        // Saving 500 documents under two value indexes (country, city), as the row above.
        for name in ["byCountryCity", "byDistance"] {
            try real.send("drop \(name)")
            for (_, database) in engines { try database.deleteIndex(forName: name) }
        }
        let hotels = Array(documents.filter { $0.id.hasPrefix("hotel_") && !$0.json.contains("\"@type\"") }.prefix(500))
        let hotelsPath = try scratch.fresh("hotels.tsv")
        try RealCore.writeDocuments(hotels, to: hotelsPath)
        var round = 0
        for (engine, database) in engines {
            let times = try Stopwatch.pairedTimes(iterations: options.iterations, ours: {
                round += 1
                try saveRound(round, of: hotels, in: database)
            }, selfTimedBaseline: {
                round += 1
                return try real.timed("save \(hotelsPath) \(round)")
            })
            let (ours, baseline) = times.medians
            rows.append(BenchmarkRow(workload: "save 500 documents, two value indexes (country, city), \(engine)",
                                     ours: ours, baselineName: "real 2.8 core", baseline: baseline, maximumRatio: 1.0))
            spreads.append("save under two indexes, \(engine): \(times.pairRatioSpread)")
        }
        let notes = [
            "Rows against \"real 2.8 core\": the same JSON query on the same \(documents.count) travel documents, ours "
                + "through Database.createQuery(json:) and execute (every row counted), the real Couchbase Lite 2.8 core "
                + "through c4query_run in a child process (Tools/interop/bench-litecore.c; every row's first column read), "
                + "which times itself; alternating, median of each. Indexes on both sides: "
                + realCoreIndexes.map { "\($0.name) (\($0.paths.joined(separator: ", ")))" }.joined(separator: ", ")
                + "; the save rows keep byCountry and byCity. Targets from issue 39: ≤ 1.0×, indexed ≤ 0.7×.",
            "Each pair's ratio, lowest to highest: " + spreads.joined(separator: "; ") + ".",
        ]
        return (rows, notes)
    }

    /// One row's runs under `QUERY_PROFILE_ALL=N` (every row run N times on each engine, without
    /// the real core): `valgrind --tool=callgrind --toggle-collect='*profiledRuns*'
    /// --dump-after='*profileBoundary*'` then writes one part per row that counts only these
    /// runs, so one process gives every row's instructions (Tools/interop/profile-rows.sh).
    @inline(never)
    static func profiledRuns(_ query: Query, _ loops: Int) throws {
        for _ in 0..<loops { _ = try query.execute().allResults().count }
    }

    /// Marks the end of one row's runs under `QUERY_PROFILE_ALL`.
    @inline(never)
    static func profileBoundary(_ label: String) {
        print("profiled: \(label)")
    }
}
