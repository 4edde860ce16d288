import Foundation
import Testing
import TestSupport
@testable import Fleece

/// The shared-key table: eligibility, limits, persistence, rollback and concurrent use.
@Suite(.ownThreads) struct SharedKeysTests {
    static func add(_ key: String, to keys: SharedKeys) -> Int? {
        var key = key
        return key.withUTF8 { keys.indexAddingIfEligible(forBytes: UnsafeRawBufferPointer($0)) }
    }

    @Test(arguments: [("name", true), ("_id", true), ("a-b_9", true), ("", true), ("sixteen_chars_ok", true),
                      ("seventeen_chars_x", false), ("has.dot", false), ("has space", false), ("café", false)])
    func eligibilityFollowsLiteCore(key: String, eligible: Bool) {
        #expect((Self.add(key, to: SharedKeys()) != nil) == eligible)
    }

    @Test func tableIsFullAt2048Keys() {
        let keys = SharedKeys()
        for index in 0..<2048 { #expect(Self.add("k\(index)", to: keys) == index) }
        #expect(Self.add("one_more", to: keys) == nil)
        #expect(Self.add("k7", to: keys) == 7)
        #expect(keys.count == 2048)
    }

    @Test func revertDropsKeysAddedAfterACount() {
        let keys = SharedKeys(keys: ["a", "b"])
        _ = Self.add("c", to: keys)
        _ = Self.add("d", to: keys)
        keys.revert(toCount: 2)
        #expect(keys.keys == ["a", "b"])
        #expect(keys.index(for: "c") == nil)
        #expect(Self.add("d", to: keys) == 2)
    }

    @Test func persistedFormIsAFleeceArrayOfStrings() throws {
        let keys = SharedKeys(keys: ["type", "name"])
        let bytes = try keys.persistedBytes()
        #expect(try FleeceDocument(bytes: bytes).root.json() == #"["type","name"]"#)
        #expect(try SharedKeys(persisted: bytes).keys == ["type", "name"])
        #expect(try SharedKeys(persisted: []).count == 0)
    }

    @Test func persistedFormThatIsNotAnArrayOfStringsIsRejected() throws {
        #expect(throws: FleeceError.self) { try SharedKeys(persisted: try JSONConverter.fleece(fromJSON: "[1]")) }
        #expect(throws: FleeceError.self) { try SharedKeys(persisted: try JSONConverter.fleece(fromJSON: "{}")) }
    }

    @Test func lookupsWorkBothWays() {
        let keys = SharedKeys(keys: ["x", "y"])
        #expect(keys.string(for: 1) == "y")
        #expect(keys.string(for: 2) == nil)
        #expect(keys.index(for: "x") == 0)
        #expect(keys.index(for: "z") == nil)
    }

    @Test func concurrentEncodersShareOneTable() async throws {
        let keys = SharedKeys()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for task in 0..<8 {
                group.addTask {
                    for index in 0..<50 {
                        _ = try JSONConverter.fleece(fromJSON: #"{"k\#(index)":1,"t\#(task)":2}"#, sharedKeys: keys)
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(keys.count == 58)
        #expect(Set(keys.keys).count == 58)
    }
}
