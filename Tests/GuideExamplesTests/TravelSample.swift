import CouchbaseLiteSwift
import Foundation
import Testing
import TestSupport

/// The travel data set (`shared/fixtures/travel`: 150 airlines, 700 hotels, 3,000 routes,
/// 300 airports and 900 landmarks) as a pre-built database per engine — the "travel-sample"
/// database the guide's examples assume. Built once per engine per test run, then copied for
/// each test with `Database.copy`, as the guide's "Loading a pre-built database" section does.
///
/// The guide's queries select by a `type` property ("hotel", "airline", "route", "airport",
/// "landmark"), as the real travel-sample's documents have; the fixture's documents name their
/// collection instead (`"collection": "hotels"`). So each document gets the real travel-sample's
/// `type`, the singular of its collection, when the sample is built (decision API-7).
enum TravelSample {
    /// The data set's files, each line a JSON object with its `_id` (`travel-sg.json` holds the
    /// airports, the landmarks and 350 more hotels).
    static let files = ["travel/travel.airlines.jsonl", "travel/travel.hotels.jsonl",
                        "travel/travel.routes.jsonl", "travel/travel-sg.json"]

    /// How many documents the data set holds.
    static let documentCount = 5_050

    /// One document of the data set: its ID, its properties without `_id` (with `type` added)
    /// as Foundation values, and the fixture's JSON line.
    struct Document {
        let id: String
        let properties: [String: Any]
        let json: String
    }

    /// Every document of the data set, in file order, read with Foundation alone — what the query
    /// tests compute their expected rows from (read once per run).
    static func documents() throws -> [Document] {
        try cache.documents { try readDocuments() }
    }

    private static let cache = DocumentCache()

    private static func readDocuments() throws -> [Document] {
        var documents: [Document] = []
        for file in files {
            let text = try String(contentsOf: try Fixtures.url(file), encoding: .utf8)
            for line in text.split(separator: "\n") where !line.isEmpty {
                let value = exactNumbers(try JSONSerialization.jsonObject(with: Data(line.utf8)))
                var object = try #require(value as? [String: Any])
                let id = try #require(object.removeValue(forKey: "_id") as? String)
                if let type = travelType(of: object) { object["type"] = type }
                documents.append(Document(id: id, properties: object, json: String(line)))
            }
        }
        return documents
    }

    /// The `type` the real travel-sample gives a document: the singular of its `collection`
    /// (nil when it has a `type` already).
    private static func travelType(of properties: [String: Any]) -> String? {
        guard properties["type"] == nil, let collection = properties["collection"] as? String, collection.hasSuffix("s") else { return nil }
        return String(collection.dropLast())
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
            let documents = try documents()
            try database.inBatch {
                for document in documents {
                    // The fixture's text with `"type"` in place of `"_id"` (each line starts with it).
                    let prefix = "{\"_id\":\"\(document.id)\","
                    #expect(document.json.hasPrefix(prefix))
                    let type = (document.properties["type"] as? String).map { "{\"type\":\"\($0)\"," } ?? "{"
                    let json = type + document.json.dropFirst(prefix.count)
                    try database.saveDocument(try MutableDocument(id: document.id, json: json))
                }
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

/// `JSONSerialization`'s value with its numbers as `Bool`, `Int` or `Double`, each double read
/// from the number's own decimal text (on Linux `JSONSerialization` keeps a decimal whose
/// `doubleValue` can miss the nearest double by an ulp).
func exactNumbers(_ value: Any) -> Any {
    switch value {
    case let object as [String: Any]: return object.mapValues(exactNumbers)
    case let array as [Any]: return array.map(exactNumbers)
    case is String: return value
    case let number as NSNumber:
        switch String(cString: number.objCType) {
        case "c", "B": return number.boolValue
        case "d", "f": return Double(number.description) ?? number.doubleValue
        default: return number.description.contains(".") ? (Double(number.description) ?? number.doubleValue) : number.intValue
        }
    default: return value
    }
}

/// The data set's documents, read once (a lock of its own, as `LockedBuilds`).
final class DocumentCache: @unchecked Sendable {
    // @unchecked: `read` is only touched under `lock`.
    private let lock = NSLock()
    private var read: [TravelSample.Document]?

    func documents(_ load: () throws -> [TravelSample.Document]) rethrows -> [TravelSample.Document] {
        lock.lock()
        defer { lock.unlock() }
        if let read { return read }
        let documents = try load()
        read = documents
        return documents
    }
}
