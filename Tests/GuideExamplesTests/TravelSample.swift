import CouchbaseLiteSwift
import Foundation
import Testing
import TestSupport

/// The travel data set (`shared/fixtures/travel`: 150 airlines, 350 hotels, 3,000 routes) as a
/// pre-built database per engine — the "travel-sample" database the guide's examples assume.
/// Built once per engine per test run, then copied for each test with `Database.copy`, as the
/// guide's "Loading a pre-built database" section does.
enum TravelSample {
    /// The data set's files, each line a JSON object with its `_id`.
    static let files = ["travel/travel.airlines.jsonl", "travel/travel.hotels.jsonl", "travel/travel.routes.jsonl"]

    /// How many documents the data set holds.
    static let documentCount = 3_500

    /// One document of the data set: its ID and its JSON without `_id`.
    struct Line {
        let id: String
        let json: String
    }

    /// Every document of the data set, in file order.
    static func lines() throws -> [Line] {
        var lines: [Line] = []
        for file in files {
            let text = try String(contentsOf: try Fixtures.url(file), encoding: .utf8)
            for line in text.split(separator: "\n") where !line.isEmpty {
                var object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
                let id = try #require(object.removeValue(forKey: "_id") as? String)
                let json = try JSONSerialization.data(withJSONObject: object)
                lines.append(Line(id: id, json: String(decoding: json, as: UTF8.self)))
            }
        }
        return lines
    }

    /// The path of a pre-built travel-sample bundle for `engine` (built on first use).
    static func prebuiltPath(_ engine: StorageEngine) throws -> String {
        try builds.withLock { built in
            if let path = built[engine] { return path }
            if built.isEmpty { removeLeftovers() }
            let directory = NSTemporaryDirectory().appending("\(prefix)\(getpid())-\(engine)")
            try? FileManager.default.removeItem(atPath: directory)
            let config = DatabaseConfiguration()
            config.directory = directory
            config.storageEngine = engine
            let database = try Database(name: "travel-sample", config: config)
            let lines = try lines()
            try database.inBatch {
                for line in lines { try database.saveDocument(try MutableDocument(id: line.id, json: line.json)) }
            }
            let path = try #require(database.path)
            try database.close()
            built[engine] = path
            return path
        }
    }

    private static let builds = LockedBuilds()
    private static let prefix = "cbl-guide-examples-"

    /// Deletes the pre-built bundles of earlier test runs whose process has ended (a run cannot
    /// delete its own: Swift Testing has no end-of-run hook).
    private static func removeLeftovers() {
        let temporary = NSTemporaryDirectory()
        let names = (try? FileManager.default.contentsOfDirectory(atPath: temporary)) ?? []
        for name in names where name.hasPrefix(prefix) {
            guard let pid = Int32(name.dropFirst(prefix.count).prefix { $0.isNumber }), pid != getpid(),
                  kill(pid, 0) != 0, errno == ESRCH else { continue }
            try? FileManager.default.removeItem(atPath: temporary + name)
        }
    }
}

/// The pre-built bundles by engine (a lock of its own: `LiteSupport.Locked` is package API).
final class LockedBuilds: @unchecked Sendable {
    // @unchecked: `paths` is only touched under `lock`.
    private let lock = NSLock()
    private var paths: [StorageEngine: String] = [:]

    func withLock<T>(_ body: (inout [StorageEngine: String]) throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body(&paths)
    }
}

extension StorageEngineKind {
    /// The public API's name for this engine.
    var publicEngine: StorageEngine {
        switch self {
        case .sqlite: .sqlite
        case .rocksdb: .rocksdb
        }
    }

    /// A configuration putting databases in `directory` with this engine.
    func config(in directory: TemporaryDirectory) -> DatabaseConfiguration {
        let config = DatabaseConfiguration()
        config.directory = directory.path
        config.storageEngine = publicEngine
        return config
    }
}

/// Opens a copy of the travel-sample database with `engine` in a fresh directory, as the
/// guide's `database`, and closes it afterwards.
func withTravelSample<T>(_ engine: StorageEngineKind, _ body: (Database) throws -> T) throws -> T {
    try withTemporaryDirectory { directory in
        let config = engine.config(in: directory)
        try Database.copy(fromPath: try TravelSample.prebuiltPath(engine.publicEngine), toDatabase: "travel-sample", withConfig: config)
        let database = try Database(name: "travel-sample", config: config)
        defer { try? database.close() }
        return try body(database)
    }
}

/// Waits for `semaphore`, failing after a generous bound so a broken listener cannot hang CI.
func waitFor(_ semaphore: DispatchSemaphore, seconds: Double = 10) -> Bool {
    semaphore.wait(timeout: .now() + seconds) == .success
}
