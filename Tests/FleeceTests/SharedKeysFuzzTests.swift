import Foundation
import Testing
import TestSupport
@testable import Fleece

/// Mutation fuzzing of document bodies encoded with shared keys (the form every stored body
/// has) and of the persisted shared-key table: every input is refused with a `FleeceError` or
/// read completely, with the full table, a shorter one (keys the body names but the table lacks)
/// and none.
@Suite(.ownThreads) struct SharedKeysFuzzTests {
    /// Real bodies: the first people of `1000people.json`, each encoded with one shared table.
    static func seeds() throws -> (bodies: [[UInt8]], keys: SharedKeys) {
        let people = try #require(try JSONSerialization.jsonObject(with: Fixtures.data("fleece/1000people.json")) as? [Any])
        let keys = SharedKeys()
        var bodies: [[UInt8]] = []
        for person in people.prefix(12) {
            let json = try JSONSerialization.data(withJSONObject: person, options: .sortedKeys)  // a stable seed
            bodies.append(try json.withUnsafeBytes { try JSONConverter.fleece(fromJSONBytes: $0, sharedKeys: keys) })
        }
        bodies.append(try JSONConverter.fleece(fromJSON: #"{"_id":"x","a":{"a":{"a":[1,{"name":null}]}},"tags":["t"]}"#,
                                               sharedKeys: keys))
        return (bodies, keys)
    }

    @Test func mutatedSharedKeyBodiesAreReadOrRefused() throws {
        let (bodies, keys) = try Self.seeds()
        let shorter = SharedKeys(keys: Array(keys.keys.prefix(keys.count / 2)))
        let campaign = try FuzzCampaign.run("Fleece shared-key bodies", seed: 0x5EED_0001, inputs: 4000,
                                            legacyVariable: "FLEECE_FUZZ_SECONDS") { random in
            let input = FuzzMutator.mutate(bodies[Int.random(in: 0..<bodies.count, using: &random)], &random)
            let table = [keys, shorter, nil][Int.random(in: 0..<3, using: &random)]
            do {
                let document = try FleeceDocument(bytes: input, sharedKeys: table)
                _ = Fuzzer.exercise(document)
                _ = document.root.dictionary?["name"]?.string
                _ = document.root.dictionary?["_id"]?.string
                _ = try? JSONConverter.json(fromFleece: input, sharedKeys: table, canonical: true)  // allowed: only must not crash
                return .accepted
            } catch is FleeceError {
                return .rejected
            }
        }
        #expect(campaign.rejected > 0 && campaign.accepted > 0)
        #expect(campaign.slowest < FuzzCampaign.perInputLimit)
    }

    @Test func mutatedSharedKeyTablesAreReadOrRefused() throws {
        let (_, keys) = try Self.seeds()
        let persisted = try keys.persistedBytes()
        let campaign = try FuzzCampaign.run("Fleece shared-key table", seed: 0x5EED_0002, inputs: 2000,
                                            legacyVariable: "FLEECE_FUZZ_SECONDS") { random in
            let input = FuzzMutator.mutate(persisted, &random)
            do {
                let table = try SharedKeys(persisted: input)
                #expect(table.count <= 2048)
                return .accepted
            } catch is FleeceError {
                return .rejected
            }
        }
        #expect(campaign.rejected > 0)
        #expect(campaign.slowest < FuzzCampaign.perInputLimit)
    }
}
