import LiteSupport
import Testing
import TestSupport
@testable import BLIP

/// Bodies that are never held whole: replies read from a ``BLIPBodySource`` as their frames go
/// out, and replies whose body is handed on frame by frame as it arrives (blobs, issue 14).
@Suite(.ownThreads) struct StreamedBodyTests {
    /// Gives a byte array in reads, as a blob file would.
    final class ArraySource: BLIPBodySource, @unchecked Sendable {
        // @unchecked: read by one connection's writer at a time, under its lock.
        let bytes: [UInt8]
        var offset = 0
        var reads = 0
        init(_ bytes: [UInt8]) { self.bytes = bytes }
        func read(maxLength: Int) throws -> [UInt8] {
            reads += 1
            let end = min(offset + maxLength, bytes.count)
            defer { offset = end }
            return Array(bytes[offset..<end])
        }
    }

    struct SourceFailure: Error {}

    final class FailingSource: BLIPBodySource, @unchecked Sendable {
        // @unchecked: stateless.
        func read(maxLength: Int) throws -> [UInt8] { throw SourceFailure() }
    }

    @Test(arguments: [0, 1, 16_383, 16_384, 16_385, 3 * 16_384, 70_001])
    func aBodySourceGivesTheFramesOfAStreamedBody(size: Int) throws {
        var generator = SplitMix64(seed: UInt64(size) + 7)
        let body = TestBytes.random(size, compressible: size % 2 == 0, using: &generator)
        for compressed in [false, true] {
            for frameSize in [1_100, BLIPFrameWriter.defaultFrameSize, BLIPFrameWriter.bigFrameSize] {
                let message = BLIPMessage(kind: .reply, number: 3, compressed: compressed,
                                          properties: ["Content-Type": "application/octet-stream"], body: body)
                var whole = BLIPFrameWriter()
                let expected = try whole.frames(for: message, maxFrameSize: frameSize, streamingBody: true)
                var streamed = BLIPFrameWriter()
                var bodyless = message
                bodyless.body = []
                var outgoing = try BLIPOutgoingMessage(bodyless, bodySource: ArraySource(body))
                var frames: [[UInt8]] = []
                while outgoing.hasMoreFrames { frames.append(try streamed.nextFrame(of: &outgoing, maxFrameSize: frameSize)) }
                #expect(frames == expected, "size \(size), compressed \(compressed), frames of \(frameSize)")
            }
        }
    }

    @Test func aStreamedReplyIsHandedOnInPiecesPastTheMessageLimit() throws {
        var generator = SplitMix64(seed: 21)
        let body = TestBytes.random(300_000, compressible: false, using: &generator)
        var writer = BLIPFrameWriter()
        let frames = try writer.frames(for: BLIPMessage(kind: .reply, number: 1, compressed: true,
                                                        properties: ["a": "b"], body: body), streamingBody: true)
        var reader = BLIPFrameReader(maxMessageSize: 100_000, checksReplyNumbers: true)
        reader.expectReply(to: 1, streamingBody: true)
        var received: [UInt8] = []
        var message: BLIPMessage?
        for frame in frames {
            let output = try reader.read(frame)
            if let chunk = output.bodyChunk {
                #expect(message == nil && chunk.number == 1)
                received += chunk.bytes
            }
            message = output.message ?? message
        }
        #expect(received == body)
        #expect(message?.properties == ["a": "b"] && message?.body == [])
        // Not registered for streaming: the same reply is over the limit.
        var gathering = BLIPFrameReader(maxMessageSize: 100_000, checksReplyNumbers: true)
        gathering.expectReply(to: 1)
        #expect(throws: BLIPError.self) {
            for frame in frames { _ = try gathering.read(frame) }
        }
    }

    /// A connection pair whose server replies to `blob` requests from a body source.
    static func blobPair(body: [UInt8], maxMessageSize: Int) -> BLIPConnection {
        let (clientEnd, serverEnd) = InMemoryBLIPTransport.pair()
        let client = BLIPConnection(transport: clientEnd, maxMessageSize: maxMessageSize)
        let server = BLIPConnection(transport: serverEnd)
        client.start()
        server.start()
        Task {
            for await request in server.requests {
                if request.profile == "fail" {
                    await request.respond(bodySource: FailingSource())
                } else {
                    await request.respond(properties: ["size": String(body.count)], bodySource: ArraySource(body),
                                          compressed: true)
                }
            }
        }
        return client
    }

    @Test func aReplyStreamsFromASourceIntoAHandlerOverAConnection() async throws {
        var generator = SplitMix64(seed: 33)
        let body = TestBytes.random(3_000_000, compressible: false, using: &generator)
            + TestBytes.random(1_000_000, compressible: true, using: &generator)
        let client = Self.blobPair(body: body, maxMessageSize: 1 << 20)
        let received = Locked<[UInt8]>([])
        let pieces = Locked(0)
        let reply = try await client.sendRequest(BLIPMessage(properties: ["Profile": "blob"])) { piece in
            received.withLock { $0 += piece }
            pieces.withLock { $0 += 1 }
        }
        #expect(reply.properties == ["size": String(body.count)] && reply.body.isEmpty)
        #expect(received.withLock { $0 } == body)
        #expect(pieces.withLock { $0 } > 100)
        await client.close()
    }

    @Test func aThrowingHandlerFailsItsRequestAndLeavesTheConnectionUsable() async throws {
        var generator = SplitMix64(seed: 34)
        let body = TestBytes.random(500_000, compressible: false, using: &generator)
        let client = Self.blobPair(body: body, maxMessageSize: 1 << 20)
        struct Full: Error {}
        await #expect(throws: Full.self) {
            _ = try await client.sendRequest(BLIPMessage(properties: ["Profile": "blob"])) { _ in throw Full() }
        }
        let received = Locked<[UInt8]>([])
        _ = try await client.sendRequest(BLIPMessage(properties: ["Profile": "blob"])) { piece in
            received.withLock { $0 += piece }
        }
        #expect(received.withLock { $0 } == body)
        await client.close()
    }

    @Test func aFailingSourceClosesTheConnection() async throws {
        let client = Self.blobPair(body: [], maxMessageSize: 1 << 20)
        await #expect(throws: BLIPError.self) {
            _ = try await client.sendRequest(BLIPMessage(properties: ["Profile": "fail"])) { _ in }
        }
        #expect(await client.waitUntilClosed() != nil)
    }
}
