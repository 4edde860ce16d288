import Foundation
import Testing
import TestSupport
@testable import Fleece

/// Mutation fuzzing of the reader and the JSON parser: every input must be rejected with an
/// error or read completely; a crash fails the whole run.
enum Fuzzer {
    static func seeds() throws -> [[UInt8]] {
        var seeds = [Array(try Fixtures.data("fleece/1person.fleece"))]
        let samples = [
            #"{"a":[1,2.5,"three",null,true,{"b":-70000}],"wide":18446744073709551615}"#,
            #"[["abcdefghijklmnop","ab","ab"],{"k":{"k":{"k":[]}}},3.141592653589793,"\u00e9"]"#,
            "[" + (0..<2100).map { "\($0 * 37)" }.joined(separator: ",") + "]",
        ]
        for sample in samples { seeds.append(try JSONConverter.fleece(fromJSON: sample)) }
        return seeds
    }

    /// One mutation: flip bits, overwrite, insert, delete or truncate.
    static func mutate(_ input: [UInt8], _ random: inout SplitMix64) -> [UInt8] {
        var bytes = input
        let edits = Int.random(in: 1...4, using: &random)
        for _ in 0..<edits where !bytes.isEmpty {
            let index = Int.random(in: 0..<bytes.count, using: &random)
            switch Int.random(in: 0..<6, using: &random) {
            case 0: bytes[index] ^= UInt8(1 << Int.random(in: 0..<8, using: &random))
            case 1: bytes[index] = UInt8.random(in: 0...255, using: &random)
            case 2: bytes.insert(UInt8.random(in: 0...255, using: &random), at: index)
            case 3: bytes.remove(at: index)
            case 4: bytes = Array(bytes[0..<index])
            default: bytes[index] = [0x80, 0xFF, 0x7F, 0x00, 0x60, 0x70, 0x4F][Int.random(in: 0..<7, using: &random)]
            }
        }
        return bytes
    }

    /// Reads everything a validated document holds (so an unchecked read past validation would crash).
    static func exercise(_ document: FleeceDocument) -> Int {
        var visited = 0
        for (_, value) in FleeceDeepIterator(document.root) {
            visited += 1
            _ = value.string
            _ = value.double
            if visited > 100_000 { break }
        }
        if visited <= 100_000 { _ = document.root.json() }   // shared subtrees can make output exponential
        _ = document.root.dictionary?["name"]
        return visited
    }

    /// Runs `iterations` mutated inputs through the reader and the JSON parser; returns how many
    /// inputs validated.
    static func run(seed: UInt64, iterations: Int) throws -> (accepted: Int, rejected: Int) {
        var random = SplitMix64(seed: seed)
        let seeds = try seeds()
        var accepted = 0, rejected = 0
        for _ in 0..<iterations {
            let base = seeds[Int.random(in: 0..<seeds.count, using: &random)]
            let input = mutate(base, &random)
            if let document = try? FleeceDocument(bytes: input) {
                accepted += 1
                _ = exercise(document)
            } else {
                rejected += 1
            }
            // The same bytes as JSON text: the parser must never crash either.
            _ = try? input.withUnsafeBytes { try JSONConverter.fleece(fromJSONBytes: $0, json5: Bool.random(using: &random)) }
        }
        return (accepted, rejected)
    }
}

@Suite(.ownThreads) struct FuzzTests {
    @Test func mutatedInputsNeverCrashTheReader() throws {
        let result = try Fuzzer.run(seed: 0xF1EE_CE, iterations: 3000)
        #expect(result.accepted + result.rejected == 3000)
        #expect(result.rejected > 0)
    }

    @Test func mutatedJSONNeverCrashesTheParser() throws {
        var random = SplitMix64(seed: 42)
        let text = Array(try Fixtures.data("fleece/1person.json"))
        var parsed = 0
        for _ in 0..<2000 {
            let input = Fuzzer.mutate(text, &random)
            if let bytes = try? input.withUnsafeBytes({ try JSONConverter.fleece(fromJSONBytes: $0) }) {
                parsed += 1
                #expect((try? FleeceDocument(bytes: bytes)) != nil)
            }
        }
        #expect(parsed < 2000)
    }

    /// The long run, only when asked: `FUZZ_SECONDS=600 swift test --filter Fuzz` (every decoder's
    /// fuzzer), or the older `FLEECE_FUZZ_SECONDS=600 swift test --filter longFuzzRun`.
    @Test(.enabled(if: FuzzCampaign.longModeSeconds(legacyVariable: "FLEECE_FUZZ_SECONDS") != nil))
    func longFuzzRun() throws {
        let seconds = FuzzCampaign.longModeSeconds(legacyVariable: "FLEECE_FUZZ_SECONDS") ?? 600
        let clock = ContinuousClock()
        let deadline = clock.now + .seconds(seconds)
        let firstSeed: UInt64 = UInt64(ProcessInfo.processInfo.environment["FLEECE_FUZZ_SEED"] ?? "") ?? 1
        var seed = firstSeed
        var total = 0, accepted = 0
        while clock.now < deadline {
            let result = try Fuzzer.run(seed: seed, iterations: 1000)
            total += 1000
            accepted += result.accepted
            seed += 1
        }
        print("fleece fuzz: \(total) inputs, \(accepted) valid, \(total - accepted) rejected, seeds \(firstSeed)..<\(seed), no crash")
        #expect(total > 0)
    }
}
