import CouchbaseLiteSwift
import Foundation

extension QueryBenchmarks {
    /// For a profiler, as `QUERY_PROFILE_ROW` is for the query rows: with `QUERY_PROFILE_ROW` set to
    /// "create…" (the index creation row) or "save…" (the save row), runs only ours of that row,
    /// `QUERY_PROFILE_LOOPS` times (default 100), on SQLite or `QUERY_PROFILE_ENGINE=RocksDB`, and
    /// ends the run with the fastest tenth's time per run. Callgrind's
    /// `--toggle-collect='*profiledWrite*'` then counts only the timed work.
    static func profileWriteRows(engines: [(String, Database)], documents: [(id: String, json: String)]) throws {
        let environment = ProcessInfo.processInfo.environment
        guard let wanted = environment["QUERY_PROFILE_ROW"] else { return }
        let creating = wanted.hasPrefix("create")
        guard creating || wanted.hasPrefix("save") else { return }
        let engine = environment["QUERY_PROFILE_ENGINE"] ?? "SQLite"
        guard let database = engines.first(where: { $0.0 == engine })?.1 else {
            throw BenchmarkFailure(description: "no engine \(engine) to profile")
        }
        let loops = max(10, environment["QUERY_PROFILE_LOOPS"].flatMap(Int.init) ?? 100)
        let hotels = Array(documents.filter { $0.id.hasPrefix("hotel_") && !$0.json.contains("\"@type\"") }.prefix(500))
        if !creating {
            // As the save rows: byCountry and byCity kept.
            for name in ["byCountryCity", "byDistance"] { try database.deleteIndex(forName: name) }
        }
        let city = IndexBuilder.valueIndex(items: ValueIndexItem.expression(Expression.property("city")))
        let clock = ContinuousClock()
        var fastest = Duration.seconds(1_000_000)
        var round = 0
        for _ in 0..<10 {
            var elapsed = Duration.zero
            for _ in 0..<(loops / 10) {
                if creating { try database.deleteIndex(forName: "byCity2") }
                round += 1
                elapsed += try clock.measure { try profiledWrite(creating: creating, round: round, city: city, hotels: hotels, in: database) }
            }
            fastest = min(fastest, elapsed)
        }
        let perRun = (Double(fastest.components.attoseconds) / 1e12 + Double(fastest.components.seconds) * 1e6) / Double(loops / 10)
        throw BenchmarkFailure(description: "profiled \(loops) runs of \(creating ? "index creation" : "500 saves"), \(engine): "
                               + "\(String(format: "%.1f", perRun)) µs a run (fastest tenth); no table")
    }

    /// One timed run of a profiled write row (its own function, for callgrind's `--toggle-collect`).
    @inline(never)
    private static func profiledWrite(creating: Bool, round: Int, city: ValueIndex,
                                      hotels: [(id: String, json: String)], in database: Database) throws {
        if creating {
            try database.createIndex(city, withName: "byCity2")
        } else {
            try saveRound(round, of: hotels, in: database)
        }
    }
}
