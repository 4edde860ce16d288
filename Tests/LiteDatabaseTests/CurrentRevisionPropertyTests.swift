import Fleece
import Foundation
import LiteStorage
import PropertyBased
import TestSupport
import Testing
@testable import LiteDatabase

/// `DatabaseCore.currentRevision(id:)` reads only the first revision of a stored tree, from the
/// record's lent bytes. It must report what decoding the whole tree (`document(id:)`) reports,
/// for trees grown by saves, deletions, pulled revisions, conflicting branches and pruning; and
/// damaged bytes must give an error or a valid body, never a crash.
@Suite(.ownThreads) struct CurrentRevisionPropertyTests {
    /// One step on document "doc", picked by `choice`; `step` makes revision digests unique.
    private static func apply(_ choice: Int, step: Int, to core: DatabaseCore) throws {
        let current = try core.document(id: "doc")
        let base = current?.revisionID
        switch choice {
        case 0, 1:
            let json = Array(#"{"v":\#(step),"s":"\#(String(repeating: "x", count: step % 40))"}"#.utf8)
            try core.saveRevision(id: "doc", base: base, policy: .lastWriteWins) { encoder in
                try json.withUnsafeBytes { try JSONConverter.write(json: $0, to: encoder) }
            }
        case 2:
            if current?.isDeleted == false {
                try core.saveRevision(id: "doc", base: base, deleted: true, policy: .lastWriteWins) { _ in }
            }
        case 3:
            // A pulled child of the current revision (or a new document).
            let generation = (base?.generation ?? 0) + 1
            let id = RevisionID(generation: generation, digest: digest(step))
            try core.insertRevision(id: "doc", history: [id] + (base.map { [$0] } ?? []),
                                    body: try fleece(core, #"{"pulled":\#(step)}"#), deleted: step % 5 == 0)
        case 4:
            // A pulled branch that does not reach the local tree: a conflict.
            let id = RevisionID(generation: UInt64(1 + step % 3), digest: digest(step))
            try core.insertRevision(id: "doc", history: [id], body: try fleece(core, #"{"branch":\#(step)}"#),
                                    deleted: false)
        case 5:
            try core.setMaxRevTreeDepth(1 + step % 4)
        default:
            try core.purgeDocument(id: "doc")
        }
    }

    private static func digest(_ step: Int) -> [UInt8] {
        (0..<20).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ step &* 17 &+ 1) }
    }

    private static func fleece(_ core: DatabaseCore, _ json: String) throws -> [UInt8] {
        try JSONConverter.fleece(fromJSON: json, sharedKeys: core.sharedKeys)
    }

    /// Whether the lazy read and the full decode agree on `id`.
    static func expectSameAsDecodedTree(_ core: DatabaseCore, _ id: String, _ context: String) throws {
        let full = try core.document(id: id)
        let fast = try core.currentRevision(id: id)
        guard let full, full.exists else {
            #expect(fast == nil, "\(context)")
            return
        }
        let read = try #require(fast, "\(context)")
        #expect(read.revision.documentID == id)
        #expect(read.revision.revisionID == full.revisionID, "\(context)")
        #expect(read.revision.sequence == full.sequence, "\(context)")
        #expect(read.revision.flags == full.flags, "\(context)")
        #expect(read.revision.isDeleted == full.isDeleted, "\(context)")
        if full.isDeleted {
            #expect(read.body == nil, "\(context)")
        } else {
            let expected = try full.body(sharedKeys: core.sharedKeys)?.bytes
            #expect(read.body?.bytes == expected, "\(context)")
        }
    }

    @Test(arguments: StorageEngineKind.allCases)
    func currentRevisionEqualsTheDecodedTree(engine: StorageEngineKind) async {
        let programs = Gen.int(in: 0...6).array(of: 1...24)
        await propertyCheck(count: 60, input: programs) { program in
            try withTemporaryCore(engine) { core, _ in
                for (step, choice) in program.enumerated() {
                    try Self.apply(choice, step: step, to: core)
                    try Self.expectSameAsDecodedTree(core, "doc", "after \(program[...step])")
                    // Inside a transaction the lazy read sees the transaction's writes too.
                    try core.inTransaction { _ in
                        try Self.apply((choice + step) % 5, step: step + 1_000, to: core)
                        try Self.expectSameAsDecodedTree(core, "doc", "in a transaction after \(program[...step])")
                    }
                }
                #expect(try core.currentRevision(id: "missing") == nil)
            }
        }
    }

    /// Any one byte of a stored tree changed or cut off: the read fails with an error or
    /// returns a body that is valid Fleece; it never traps.
    @Test(arguments: StorageEngineKind.allCases)
    func damagedTreesGiveAnErrorOrAValidBody(engine: StorageEngineKind) async throws {
        let damages = Gen.int(in: 0...1_000_000).array(of: 1...12)
        try withTemporaryCore(engine) { core, _ in
            for step in 0..<6 { try Self.apply(step % 2 == 0 ? 0 : 4, step: step, to: core) }
        }
        await propertyCheck(count: 60, input: damages) { damage in
            try withTemporaryCore(engine) { core, _ in
                for step in 0..<4 { try Self.apply(step == 2 ? 4 : 0, step: step, to: core) }
                let record = try #require(try core.documents.get("doc"))
                var body = record.body
                for value in damage {
                    let position = value % body.count
                    if value % 7 == 0 {
                        body.removeSubrange(position...)
                        if body.isEmpty { break }
                    } else {
                        body[position] ^= UInt8(truncatingIfNeeded: value >> 8) | 1
                    }
                }
                try core.dataFile.write { txn in
                    _ = try core.documents.set(Record(key: "doc", version: record.version, body: body, flags: record.flags),
                                               ifSequence: nil, in: txn)
                }
                do {
                    if let read = try core.currentRevision(id: "doc"), let document = read.body {
                        _ = document.root.json()
                    }
                } catch let error as DatabaseError {
                    #expect(error.code == .corruptRevisionData || error.code == .badRevisionID, "\(error)")
                }
            }
        }
    }

    @Test(arguments: StorageEngineKind.allCases)
    func aBodyThatIsNotFleeceIsAnError(engine: StorageEngineKind) throws {
        try withTemporaryCore(engine) { core, _ in
            try save(core, "damaged", #"{"b":2}"#)
            try CoreSafetyTests.damageBody(of: "damaged", in: core, engine: engine)
            do {
                _ = try core.currentRevision(id: "damaged")
                Issue.record("a body that is not Fleece was read")
            } catch let error as DatabaseError {
                #expect(error.code == .corruptRevisionData)
                #expect("\(error)".contains("\"damaged\"") && "\(error)".contains("not valid Fleece"), "\(error)")
            }
        }
    }
}
