import Foundation
import TestSupport

/// `v1/expectations.json`: what LiteCore's upgrader test expects of each 1.x fixture.
struct FixtureExpectations: Decodable {
    /// One fixture database and its expected documents and blobs.
    struct Case: Decodable {
        /// An expected document: body as the exact JSON string, history current first.
        struct Document: Decodable {
            let id: String
            let body: String
            let history: [String]
        }
        /// The bundle, relative to the fixtures folder (`v1/ios120/iosdb.cblite2`).
        let fixture: String
        let docs: [Document]
        /// Every blob digest (`sha1-<base64>`) the upgraded database must hold.
        let blobs: [String]
    }

    private struct UpgraderTest: Decodable {
        let cases: [Case]
    }

    private let upgraderTest: UpgraderTest

    private enum CodingKeys: String, CodingKey {
        case upgraderTest = "litecore_UpgraderTest"
    }

    /// The case for a fixture folder name such as `ios120`.
    static func `case`(_ name: String) throws -> Case {
        let data = try Fixtures.data("v1/expectations.json")
        let all = try JSONDecoder().decode(FixtureExpectations.self, from: data)
        guard let found = all.upgraderTest.cases.first(where: { $0.fixture.hasPrefix("v1/\(name)/") }) else {
            throw MissingFixture(description: "no case for \(name) in v1/expectations.json")
        }
        return found
    }
}
