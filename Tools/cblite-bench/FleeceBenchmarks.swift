import Fleece
import Foundation

/// Fleece against Foundation's `JSONSerialization` on `1000people.json` (1.3 MB): converting,
/// validating, traversing and one nested lookup, each paired with the equivalent Foundation work.
enum FleeceBenchmarks: BenchmarkArea {
    static let name = "fleece"
    static let summary = "JSON → Fleece, validation, traversal and lookup vs JSONSerialization (1000people.json)."

    struct MissingFixture: Error, CustomStringConvertible {
        var description: String {
            "fleece benchmark: fixtures/fleece/1000people.json not found; set CBL_FIXTURES to the shared/fixtures folder"
        }
    }

    /// Finds `shared/fixtures/fleece/1000people.json` from `$CBL_FIXTURES`, the working directory
    /// or this source file.
    static func fixture() throws -> Data {
        var candidates: [URL] = []
        if let root = ProcessInfo.processInfo.environment["CBL_FIXTURES"] { candidates.append(URL(fileURLWithPath: root)) }
        for start in [URL(fileURLWithPath: FileManager.default.currentDirectoryPath), URL(fileURLWithPath: #filePath)] {
            var directory = start
            while directory.path != "/" {
                candidates.append(directory.appendingPathComponent("shared/fixtures"))
                directory = directory.deletingLastPathComponent()
            }
        }
        for root in candidates {
            let url = root.appendingPathComponent("fleece/1000people.json")
            if let data = try? Data(contentsOf: url) { return data }
        }
        throw MissingFixture()
    }

    /// Visits every value of a Fleece tree, reading each scalar.
    static func traverse(_ value: FleeceValue) -> Int {
        if let array = value.array {
            var total = 1
            for item in array { total &+= traverse(item) }
            return total
        }
        if let dict = value.dictionary {
            var total = 1
            for index in 0..<dict.count {
                if let entry = dict.entryValues(at: index) { total &+= traverse(entry.value) }
            }
            return total
        }
        switch value.type {
        case .string:
            return value.withPayload { $0.count }
        case .number:
            return Int(value.double.magnitude.truncatingRemainder(dividingBy: 7))
        default:
            return value.bool ? 1 : 0
        }
    }

    /// Visits every value of a Foundation JSON tree, reading each scalar.
    static func traverse(_ value: Any) -> Int {
        if let array = value as? [Any] {
            var total = 1
            for item in array { total &+= traverse(item) }
            return total
        }
        if let dict = value as? [String: Any] {
            var total = 1
            for (_, item) in dict { total &+= traverse(item) }
            return total
        }
        if let string = value as? String { return string.utf8.count }
        if let number = value as? NSNumber { return Int(number.doubleValue.magnitude.truncatingRemainder(dividingBy: 7)) }
        return 0
    }

    static func run(_ options: BenchmarkOptions) throws -> BenchmarkReport {
        let json = try fixture()
        let jsonBytes = [UInt8](json)
        let iterations = options.quick ? 1 : options.iterations
        let lookups = options.quick ? 1_000 : 100_000
        var report = BenchmarkReport(area: name)
        var sink = 0

        let parseTime = Stopwatch.median(iterations: iterations) {
            sink &+= ((try? JSONSerialization.jsonObject(with: json)) as? [Any])?.count ?? 0
        }
        let convertTime = Stopwatch.median(iterations: iterations) {
            let keys = SharedKeys()
            sink &+= ((try? jsonBytes.withUnsafeBytes { try JSONConverter.fleece(fromJSONBytes: $0, sharedKeys: keys) }) ?? []).count
        }
        report.rows.append(BenchmarkRow(workload: "JSON → Fleece (with shared keys)", ours: convertTime,
                                        baselineName: "JSONSerialization parse", baseline: parseTime, maximumRatio: 1.0))

        let keys = SharedKeys()
        let fleece = try jsonBytes.withUnsafeBytes { try JSONConverter.fleece(fromJSONBytes: $0, sharedKeys: keys) }
        let validateTime = Stopwatch.median(iterations: iterations) {
            sink &+= (try? FleeceDocument(bytes: fleece, sharedKeys: keys))?.byteCount ?? 0
        }
        report.rows.append(BenchmarkRow(workload: "Fleece validation", ours: validateTime,
                                        baselineName: "JSONSerialization parse", baseline: parseTime, maximumRatio: nil))

        let trusted = try FleeceDocument(bytes: fleece, sharedKeys: keys, trusted: true)
        let foundationTree = try JSONSerialization.jsonObject(with: json)
        let traverseTime = Stopwatch.median(iterations: iterations) { sink &+= traverse(trusted.root) }
        let foundationTraverseTime = Stopwatch.median(iterations: iterations) { sink &+= traverse(foundationTree) }
        report.rows.append(BenchmarkRow(workload: "full traversal", ours: traverseTime,
                                        baselineName: "traverse Foundation tree", baseline: foundationTraverseTime, maximumRatio: nil))

        let loadAndTraverse = Stopwatch.median(iterations: iterations) {
            if let document = try? FleeceDocument(bytes: fleece, sharedKeys: keys) { sink &+= traverse(document.root) }
        }
        report.rows.append(BenchmarkRow(workload: "validate + full traversal", ours: loadAndTraverse,
                                        baselineName: "JSONSerialization parse", baseline: parseTime, maximumRatio: 0.1))

        let lookupTime = Stopwatch.median(iterations: iterations) {
            for _ in 0..<lookups { sink &+= trusted.root.array?[123]?.dictionary?["name"]?.withPayload { $0.count } ?? 0 }
        }
        let foundationLookupTime = Stopwatch.median(iterations: iterations) {
            for _ in 0..<lookups {
                sink &+= (((foundationTree as? [Any])?[123] as? [String: Any])?["name"] as? String)?.utf8.count ?? 0
            }
        }
        report.rows.append(BenchmarkRow(workload: "lookup [123].name ×\(lookups)", ours: lookupTime,
                                        baselineName: "same on Foundation tree", baseline: foundationLookupTime, maximumRatio: nil))
        report.notes.append("1000people.json: \(json.count) bytes of JSON, \(fleece.count) bytes of Fleece with \(keys.count) shared keys (checksum \(sink % 10)).")
        return report
    }
}
