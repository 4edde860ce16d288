import CouchbaseLiteSwift
import Foundation
import LiteSupport
import Testing
import TestSupport

/// Issue 41's acceptance on real data: the travel set (5,050 documents) imported with
/// `cblite import --encryption-key-file`, then given a blob on every tenth hotel, value and
/// full-text indexes through the API, leaves no document ID, no string of a document and no blob
/// byte sequence in any file of the bundle once closed; and queries answer exactly as on the
/// same data imported unencrypted.
@Suite(.ownThreads) struct EncryptedTravelTests {
    static let files = ["travel/travel.airlines.jsonl", "travel/travel.hotels.jsonl",
                        "travel/travel.routes.jsonl", "travel/travel-sg.json"]

    struct TravelDocument: @unchecked Sendable {  // its Foundation values are only read
        let id: String
        let properties: [String: Any]
        let blob: Data?
    }

    /// The data set; every tenth hotel gets a 4 KB blob of its own as its `image` (set after
    /// the import). Read once per run.
    static func documents() throws -> [TravelDocument] {
        try cache.withLock { cached in
            if let cached { return cached }
            let documents = try readDocuments()
            cached = documents
            return documents
        }
    }

    private static let cache = Locked<[TravelDocument]?>(nil)

    private static func readDocuments() throws -> [TravelDocument] {
        var documents: [TravelDocument] = []
        var hotels = 0
        for file in files {
            let text = try String(contentsOf: try Fixtures.url(file), encoding: .utf8)
            for line in text.split(separator: "\n") where !line.isEmpty {
                var object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
                let id = try #require(object.removeValue(forKey: "_id") as? String)
                var blob: Data?
                if object["collection"] as? String == "hotels" {
                    hotels += 1
                    if hotels % 10 == 0 {
                        var generator = SplitMix64(seed: UInt64(hotels))
                        blob = Data((0..<4_096).map { _ in UInt8(truncatingIfNeeded: generator.next()) })
                    }
                }
                documents.append(TravelDocument(id: id, properties: object, blob: blob))
            }
        }
        return documents
    }

    /// Imports the data set into `name` with `cblite import` (encrypted when `keyFile` is given),
    /// then adds the blobs and the indexes through the API.
    static func importTravel(_ documents: [TravelDocument], name: String, engine: StorageEngineKind,
                             directory: TemporaryDirectory, keyFile: String?) throws {
        let lines = directory.appending("travel.jsonl")
        if !FileManager.default.fileExists(atPath: lines.path) {
            var joined = Data()
            for file in files {
                joined.append(try Data(contentsOf: try Fixtures.url(file)))
                if joined.last != UInt8(ascii: "\n") { joined.append(UInt8(ascii: "\n")) }
            }
            try joined.write(to: lines)
        }
        var arguments = ["import", directory.appending("\(name).cblite2").path, lines.path, "--engine", engine.rawValue, "--quiet"]
        if let keyFile { arguments += ["--encryption-key-file", keyFile] }
        let result = try ToolRunner.run("cblite", arguments)
        #expect(result.status == 0, "cblite import: \(result.stderr)")
        let key = try keyFile.map { EncryptionKey.key(try Data(contentsOf: URL(fileURLWithPath: $0))) }
        let database = try Database(name: name, config: config(engine, directory, key))
        defer { try? database.close() }  // allowed: a failed close shows in the scan and the reopen below
        try database.inBatch {
            for travel in documents {
                guard let blob = travel.blob, let document = database.document(withID: travel.id)?.toMutable() else { continue }
                document.setBlob(Blob(contentType: "image/png", data: blob), forKey: "image")
                try database.saveDocument(document)
            }
        }
        try database.createIndex(IndexBuilder.valueIndex(items: ValueIndexItem.property("country")), withName: "country")
        try database.createIndex(IndexBuilder.fullTextIndex(items: FullTextIndexItem.property("description")),
                                 withName: "descriptions")
        try database.close()
    }

    /// What must not reach the disk: every ID, every string (and property name) of 6 bytes or
    /// more, and four 16-byte stretches of every blob.
    static func secrets(_ documents: [TravelDocument]) -> [[UInt8]] {
        var found = Set<[UInt8]>()
        func collect(_ value: Any) {
            switch value {
            case let string as String where string.utf8.count >= PlaintextScanner.prefixLength:
                found.insert(Array(string.utf8))
            case let array as [Any]:
                array.forEach(collect)
            case let dictionary as [String: Any]:
                for (key, value) in dictionary {
                    collect(key)
                    collect(value)
                }
            default:
                break
            }
        }
        for document in documents {
            collect(document.id)
            collect(document.properties)
            if let blob = document.blob {
                for offset in [0, 1_000, 2_000, 4_080] { found.insert(Array(blob[offset..<offset + 16])) }
            }
        }
        return Array(found)
    }

    static func config(_ engine: StorageEngineKind, _ directory: TemporaryDirectory, _ key: EncryptionKey?) -> DatabaseConfiguration {
        engine.configuration(in: directory, key: key)
    }

    /// Seeded queries over the data: indexed and unindexed comparisons, prefixes, ranges,
    /// array quantifiers, grouping and full-text matches.
    static func queries(_ documents: [TravelDocument], count: Int, seed: UInt64) -> [String] {
        var random = SplitMix64(seed: seed)
        func pick<T>(_ values: [T]) -> T { values[Int(random.next() % UInt64(values.count))] }
        let countries = Array(Set(documents.compactMap { $0.properties["country"] as? String })).sorted()
        let names = documents.compactMap { $0.properties["name"] as? String }.filter { $0.count >= 3 }
        let airports = Array(Set(documents.compactMap { $0.properties["sourceairport"] as? String })).sorted()
        let words = documents.compactMap { $0.properties["description"] as? String }
            .flatMap { $0.split(separator: " ").map { $0.filter(\.isLetter).lowercased() } }.filter { $0.count >= 4 }
        let collections = ["hotels", "airports", "airlines", "routes", "landmarks"]
        return (0..<count).map { _ in
            switch random.next() % 7 {
            case 0: "SELECT META().id FROM _ WHERE country = '\(pick(countries))' AND collection = '\(pick(collections))'"
            case 1: "SELECT META().id, name FROM _ WHERE name LIKE '\(String(pick(names).prefix(3)).replacing("'", with: "''"))%'"
            case 2: "SELECT META().id FROM _ WHERE geo.alt BETWEEN \(random.next() % 500) AND \(random.next() % 3_000)"
            case 3: "SELECT META().id FROM _ WHERE MATCH(descriptions, '\(pick(words))')"
            case 4: "SELECT city, COUNT(*) FROM _ WHERE collection = '\(pick(collections))' GROUP BY city ORDER BY city"
            case 5: "SELECT META().id FROM _ WHERE sourceairport = '\(pick(airports))' "
                + "AND ANY s IN schedule SATISFIES s.day = \(random.next() % 7) END"
            default: "SELECT META().id, price FROM _ WHERE free_breakfast = \(random.next() % 2 == 0) AND country = '\(pick(countries))' "
                + "ORDER BY META().id LIMIT 20"
            }
        }
    }

    static func answers(_ database: Database, _ queries: [String]) throws -> [[String]] {
        try queries.map { sql in
            try database.createQuery(sql).execute().map { "\($0.toArray())" }.sorted()
        }
    }

    @Test(arguments: StorageEngineKind.allCases)
    func theEncryptedTravelSetLeavesNoPlaintextAndAnswersAlike(engine: StorageEngineKind) throws {
        let documents = try Self.documents()
        #expect(documents.count == 5_050)
        let scanner = PlaintextScanner(needles: Self.secrets(documents))
        let queries = Self.queries(documents, count: 60, seed: engine == .sqlite ? 411 : 412)
        try withTemporaryDirectory { directory in
            try Self.importTravel(documents, name: "plain", engine: engine, directory: directory, keyFile: nil)
            let plain = try Database(name: "plain", config: Self.config(engine, directory, nil))
            #expect(plain.count == 5_050)
            let expected = try Self.answers(plain, queries)
            try plain.close()
            #expect(expected.filter { !$0.isEmpty }.count > queries.count / 2, "most queries find something")

            let keyFile = directory.appending("key.bin").path
            var generator = SystemRandomNumberGenerator()
            let keyBytes = Data((0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) })
            try keyBytes.write(to: URL(fileURLWithPath: keyFile))
            try Self.importTravel(documents, name: "secret", engine: engine, directory: directory, keyFile: keyFile)
            let key = EncryptionKey.key(keyBytes)

            let bundle = directory.appending("secret.cblite2")
            let leaks = try scanner.occurrences(inFolder: bundle)
            #expect(leaks.isEmpty, "plaintext in the encrypted bundle: \(leaks.prefix(5))")
            let control = try scanner.occurrences(inFolder: directory.appending("plain.cblite2"))
            #expect(control.count > 1_000, "the scan's control: the plaintext bundle shows \(control.count) secrets")

            let reopened = try Database(name: "secret", config: Self.config(engine, directory, key))
            defer { try? reopened.close() }
            let answers = try Self.answers(reopened, queries)
            let differing = zip(queries, zip(answers, expected)).filter { $0.1.0 != $0.1.1 }.map(\.0)
            #expect(differing.isEmpty, "\(differing.count) queries answer differently: \(differing.prefix(3))")
            let blob = reopened.document(withID: try #require(documents.first { $0.blob != nil }).id)?.blob(forKey: "image")
            #expect(blob?.content == documents.first { $0.blob != nil }?.blob)
        }
    }
}
