import Foundation
import Testing
import TestSupport
@testable import Fleece

/// Fuzzing of `JSONDelta.apply`, which takes delta-sync bodies straight from a replication
/// peer (issue 37): deltas made between real pairs of values, then mutated, applied to the old
/// value and turned into JSON as the replicator does. Every input must give a valid value or a
/// `FleeceError`; a crash or a hang fails the run. Unmutated deltas must rebuild the new value.
@Suite(.ownThreads) struct JSONDeltaFuzzTests {
    /// Pairs of values (old, new) as JSON: the JsonDiffPatch vectors and document-like bodies.
    static func pairs() throws -> [(String, String)] {
        var result: [(String, String)] = []
        let vectors = try FleeceDocument(json: fixtureText("fleece/DeltaTests.json5"), json5: true)
        for (_, tests) in try #require(vectors.root.dictionary) {
            guard let tests = tests.array else { continue }
            for test in tests {
                guard let test = test.dictionary, let left = test["left"]?.json(), let right = test["right"]?.json() else { continue }
                result.append((left, right))
            }
        }
        let long = String(repeating: "the quick brown fox jumps over the lazy dog ", count: 4)
        result += [
            (#"{"name":"a","tags":["x","y","z"],"n":1,"nested":{"k":[1,2,{"d":true}]}}"#,
             #"{"name":"b","tags":["x","z"],"n":2.5,"nested":{"k":[1,{"d":false},3,4]},"new":null}"#),
            (#"{"text":"\#(long)é","list":[1,2,3,4,5,6,7,8]}"#,
             #"{"text":"\#(long.uppercased())ü","list":[1,2,3]}"#),
            (#"{"file":{"@type":"blob","digest":"sha1-AAAAAAAAAAAAAAAAAAAAAAAAAAA=","length":3}}"#,
             #"{"file":{"@type":"blob","digest":"sha1-BBBBBBBBBBBBBBBBBBBBBBBBBBB=","length":300}}"#),
        ]
        return result
    }

    static func value(_ json: String) throws -> FleeceValue {
        try #require(try FleeceDocument(json: "[\(json)]").root.array?[0])
    }

    /// Tokens of the delta grammar, so mutations reach its branches rather than the JSON parser's.
    static let tokens = ["[]", "[0]", "[1,2]", ",0,0]", ",0,2]", ",0,7]", #"{"0-":["#, #"{"9-":[]}"#, #"{"0":[]}"#,
                         #""3=2-1+x|""#, #""99999999999999=""#, #""1+|""#, "{}", "{", "}", "[", "]", ",", ":", "\"",
                         "-", "="]

    @Test func mutatedDeltasApplyOrAreRefused() throws {
        let pairs = try Self.pairs().map { (try Self.value($0.0), try Self.value($0.1)) }
        #expect(pairs.count > 40)
        let campaign = FuzzCampaign.run("JSON delta apply", seed: 0xDE17A, inputs: 6000) { random in
            let (old, new) = pairs[Int.random(in: 0..<pairs.count, using: &random)]
            guard let delta = JSONDelta.create(from: old, to: new, compatible: Bool.random(using: &random)) else {
                return .accepted
            }
            let mutated = Int.random(in: 0..<8, using: &random) != 0
            let input = mutated ? FuzzMutator.mutate(delta, &random, tokens: Self.tokens) : delta
            let target: FleeceValue? = Int.random(in: 0..<16, using: &random) == 0 ? nil : old
            do {
                let bytes = try JSONDelta.apply(input, to: target)
                // What the replicator does with the result: read it and write it as JSON.
                let rebuilt = try FleeceDocument(bytes: bytes)
                _ = try JSONConverter.json(fromFleece: bytes)
                if !mutated, target != nil {
                    #expect(rebuilt.root.isEqual(to: new), "delta \(delta) rebuilt \(rebuilt.root.json())")
                }
                return .accepted
            } catch is FleeceError {
                return .rejected
            } catch {
                Issue.record("applying \(input.prefix(200)) threw \(type(of: error)), not FleeceError")
                return .rejected
            }
        }
        #expect(campaign.accepted > 0 && campaign.rejected > 0)
        #expect(campaign.slowest < FuzzCampaign.perInputLimit)
    }
}
