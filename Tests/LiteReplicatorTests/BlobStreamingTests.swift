import BLIP
import BlobStore
import Fleece
import Foundation
import LiteDatabase
import Testing
import TestSupport
@testable import LiteReplicator

/// Blobs travel in `getAttachment` replies streamed both ways: read from the file as frames go
/// out, written to the blob store as they arrive, never held whole (issue 14).
@Suite(.ownThreads) struct BlobStreamingTests {
    /// Larger than the connections' message limit below, so it can only arrive streamed.
    static let blobSize = 20 << 20
    static let messageLimit = 4 << 20

    /// Deterministic, poorly compressible content (xorshift), so deflate does real work.
    static func content(count: Int, seed: UInt64) -> [UInt8] {
        var state = seed | 1
        var bytes = [UInt8](repeating: 0, count: count)
        for index in bytes.indices {
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            bytes[index] = UInt8(truncatingIfNeeded: state)
        }
        return bytes
    }

    static func saveDocument(_ core: DatabaseCore, id: String, blob key: BlobKey, length: Int) throws {
        let json = #"{"file":{"@type":"blob","digest":"\#(key.string)","length":\#(length),"#
            + #""content_type":"application/octet-stream"}}"#
        try core.saveRevision(id: id, base: nil, policy: .failOnConflict) { encoder in
            try Array(json.utf8).withUnsafeBytes { try JSONConverter.write(json: $0, to: encoder) }
        }
    }

    /// Replicates `from` → `to` (push) over an in-memory pair with small message limits.
    static func push(from source: DatabaseCore, to target: DatabaseCore) async throws {
        let (clientEnd, serverEnd) = InMemoryBLIPTransport.pair()
        let passive = ReplicationSession(database: target,
                                         connection: BLIPConnection(transport: serverEnd, maxMessageSize: messageLimit),
                                         role: .passive(readOnly: false))
        let server = Task { await passive.serve() }
        let active = ReplicationSession(database: source,
                                        connection: BLIPConnection(transport: clientEnd, maxMessageSize: messageLimit),
                                        role: .active(ReplicationOptions(push: true, pull: false, remoteURL: "ws://blobs")))
        try await active.runActive()
        _ = await server.value
    }

    static func incomingFiles(_ core: DatabaseCore) -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: core.blobStore.directory.path)) ?? []
        return names.filter { $0.hasPrefix(BlobStore.temporaryFilePrefix) }
    }

    @Test(arguments: StorageEngineKind.allCases)
    func aBlobLargerThanTheMessageLimitArrivesByteIdentical(engine: StorageEngineKind) async throws {
        let content = Self.content(count: Self.blobSize, seed: 14)
        try await withReplicatorCore(engine) { source in
            let key = try source.blobStore.write(content)
            try Self.saveDocument(source, id: "big", blob: key, length: content.count)
            try await withReplicatorCore(engine.other) { middle in
                try await Self.push(from: source, to: middle)
                let arrived = try middle.document(id: "big")
                #expect(arrived != nil)
                #expect(try [UInt8](middle.blobStore.data(for: key)) == content)
                #expect(Self.incomingFiles(middle).isEmpty)
                // And on to the first engine again, served from the second's store.
                try await withReplicatorCore(engine) { last in
                    try await Self.push(from: middle, to: last)
                    #expect(try [UInt8](last.blobStore.data(for: key)) == content)
                }
            }
        }
    }

    @Test(arguments: StorageEngineKind.allCases)
    func aBlobWhoseContentDoesNotMatchItsDigestIsRefusedAndNothingIsSaved(engine: StorageEngineKind) async throws {
        try await withReplicatorCore(engine) { core in
            let promised = Self.content(count: 300_000, seed: 1)
            let key = BlobKey(hashing: promised)
            var sent = promised
            sent[150_000] ^= 0xFF  // same length, other digest
            let (clientEnd, serverEnd) = InMemoryBLIPTransport.pair()
            let passive = ReplicationSession(database: core, connection: BLIPConnection(transport: serverEnd),
                                             role: .passive(readOnly: false))
            let server = Task { await passive.serve() }
            // A peer that serves the wrong bytes for the blob its revision names.
            let peer = BLIPConnection(transport: clientEnd)
            peer.start()
            let answering = Task {
                for await request in peer.requests where request.profile == "getAttachment" {
                    #expect(request.message.properties["digest"] == key.string)
                    await request.respond(body: sent, compressed: true)
                }
            }
            let body = #"{"file":{"@type":"blob","digest":"\#(key.string)","length":\#(promised.count),"#
                + #""content_type":"application/octet-stream"}}"#
            let revision = "1-0123456789abcdef0123456789abcdef01234567"
            let refusal = await #expect(throws: BLIPError.self) {
                _ = try await peer.sendRequest(BLIPMessage(properties: ["Profile": "rev", "id": "doc", "rev": revision],
                                                           body: Array(body.utf8)))
            }
            guard case let .remote(domain, code, message) = refusal else {
                Issue.record("expected an error reply, got \(String(describing: refusal))")
                return
            }
            #expect(domain == "HTTP" && code == 400)
            #expect(message.contains(key.string) && message.contains("digest") && message.contains("nothing was stored"))
            await peer.close()
            _ = await server.value
            answering.cancel()
            let stored = try core.document(id: "doc")
            #expect(stored == nil)
            #expect(!core.blobStore.contains(key))
            #expect(Self.incomingFiles(core).isEmpty)
        }
    }
}
