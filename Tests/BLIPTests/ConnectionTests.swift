import Testing
import TestSupport
@testable import BLIP

/// BLIPConnection over an in-memory transport pair.
@Suite(.ownThreads) struct ConnectionTests {
    /// Two started connections; the server answers every request with `handler`.
    static func pair(maxMessageSize: Int = BLIPFrameReader.defaultMaxMessageSize,
                     handler: @escaping @Sendable (BLIPIncomingRequest) async -> Void = echo)
        -> (client: BLIPConnection, server: BLIPConnection) {
        let (clientEnd, serverEnd) = InMemoryBLIPTransport.pair()
        let client = BLIPConnection(transport: clientEnd)
        let server = BLIPConnection(transport: serverEnd, maxMessageSize: maxMessageSize)
        client.start()
        server.start()
        Task {
            await withTaskGroup(of: Void.self) { group in
                for await request in server.requests {
                    group.addTask { await handler(request) }
                }
            }
        }
        return (client, server)
    }

    /// Replies with the request's properties (minus Profile) and body, compressed like it.
    @Sendable static func echo(_ request: BLIPIncomingRequest) async {
        var properties = request.message.properties
        properties["Profile"] = nil
        await request.respond(properties: properties, body: request.message.body,
                              compressed: request.message.compressed)
    }

    @Test func requestGetsItsReply() async throws {
        let (client, server) = Self.pair()
        let reply = try await client.sendRequest(BLIPMessage(properties: ["Profile": "echo", "id": "doc-1"],
                                                             body: Array("hello".utf8)))
        #expect(reply.kind == .reply && reply.number == 1)
        #expect(reply.properties == ["id": "doc-1"])
        #expect(reply.body == Array("hello".utf8))
        let second = try await client.sendRequest(BLIPMessage(properties: ["Profile": "echo"]))
        #expect(second.number == 2)
        await client.close()
        #expect(await client.waitUntilClosed() == nil)
        #expect(await server.waitUntilClosed() == nil, "the peer's close 1000 is clean")
    }

    @Test func errorReplyThrowsRemoteError() async throws {
        let (client, _) = Self.pair { request in
            await request.respondError(domain: "HTTP", code: 404, message: "no such checkpoint")
        }
        await #expect(throws: BLIPError.remote(domain: "HTTP", code: 404, message: "no such checkpoint")) {
            try await client.sendRequest(BLIPMessage(properties: ["Profile": "getCheckpoint"]))
        }
        let defaultDomain = Self.pair { await $0.respondError(code: 501, message: "") }
        await #expect(throws: BLIPError.remote(domain: "BLIP", code: 501, message: "")) {
            try await defaultDomain.client.sendRequest(BLIPMessage())
        }
        await client.close()
        await defaultDomain.client.close()
    }

    @Test func noReplyRequestsArriveAndNeedNoAnswer() async throws {
        let (clientEnd, serverEnd) = InMemoryBLIPTransport.pair()
        let client = BLIPConnection(transport: clientEnd)
        let server = BLIPConnection(transport: serverEnd)
        client.start()
        server.start()
        try await client.sendNoReply(BLIPMessage(urgent: true, properties: ["Profile": "changes"]))
        var requests = server.requests.makeAsyncIterator()
        let first = try #require(await requests.next())
        #expect(first.message.noReply && first.message.urgent && first.message.number == 1)
        await first.respond(body: [1])  // a no-op: nothing goes back
        async let reply = client.sendRequest(BLIPMessage(properties: ["Profile": "after"]))
        let second = try #require(await requests.next())
        #expect(second.message.number == 2 && !second.message.noReply)
        await second.respond(body: [2])
        await second.respond(body: [3])  // answered once only
        #expect(try await reply.body == [2])
        await client.close()
        await server.close()
    }

    @Test func twoHundredConcurrentRequestsAreAllAnswered() async throws {
        let (client, _) = Self.pair()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<200 {
                group.addTask {
                    let body = Array("request \(index)".utf8)
                    let reply = try await client.sendRequest(BLIPMessage(urgent: index % 3 == 0, compressed: index % 2 == 0,
                                                                         properties: ["Profile": "echo", "i": "\(index)"],
                                                                         body: body))
                    #expect(reply.properties["i"] == "\(index)")
                    #expect(reply.body == body)
                }
            }
            try await group.waitForAll()
        }
        await client.close()
    }

    /// Replies handed to a handler on the reader: each request's handler gets its own reply,
    /// ERR replies as the remote error, exactly once each.
    @Test func replyHandlersGetTheirRepliesOnce() async throws {
        let (client, _) = Self.pair { request in
            if request.message.properties["fail"] != nil {
                await request.respondError(domain: "HTTP", code: 409, message: "conflict")
            } else {
                await Self.echo(request)
            }
        }
        let results = AsyncStream<(Int, Result<BLIPMessage, any Error>)>.makeStream()
        for index in 0..<150 {
            var properties: BLIPProperties = ["Profile": "echo", "i": "\(index)"]
            if index % 7 == 0 { properties["fail"] = "1" }
            client.sendRequest(BLIPMessage(compressed: index % 2 == 0, properties: properties,
                                           body: Array("body \(index)".utf8))) { result in
                results.continuation.yield((index, result))
            }
        }
        var seen = Set<Int>()
        for await (index, result) in results.stream {
            #expect(seen.insert(index).inserted, "one reply per request")
            if index % 7 == 0 {
                #expect(throws: BLIPError.remote(domain: "HTTP", code: 409, message: "conflict")) { try result.get() }
            } else {
                let reply = try result.get()
                #expect(reply.properties["i"] == "\(index)" && reply.body == Array("body \(index)".utf8))
            }
            if seen.count == 150 { break }
        }
        await client.close()
    }

    @Test func replyHandlersFailWhenTheConnectionCloses() async throws {
        let arrived = AsyncStream<Void>.makeStream()
        let (client, _) = Self.pair { _ in arrived.continuation.yield() }  // never answers
        let results = AsyncStream<Result<BLIPMessage, any Error>>.makeStream()
        client.sendRequest(BLIPMessage(properties: ["Profile": "slow"])) { results.continuation.yield($0) }
        var events = arrived.stream.makeAsyncIterator()
        await events.next()
        await client.close(code: 1001, reason: "going away")
        var iterator = results.stream.makeAsyncIterator()
        let result = try #require(await iterator.next())
        #expect(throws: BLIPError.closed(code: 1001, reason: "going away")) { try result.get() }
        // Sent after the close: the handler fails at once.
        client.sendRequest(BLIPMessage()) { results.continuation.yield($0) }
        let late = try #require(await iterator.next())
        #expect(throws: BLIPError.closed(code: 1001, reason: "going away")) { try late.get() }
    }

    @Test func fiveMegabyteCompressedBodyRoundTrips() async throws {
        var generator = SplitMix64(seed: 5)
        // Half incompressible, so the frames really carry megabytes and flow control engages.
        let body = TestBytes.random(2_500_000, compressible: false, using: &generator)
            + TestBytes.random(2_500_000, compressible: true, using: &generator)
        let (client, _) = Self.pair()
        let reply = try await client.sendRequest(BLIPMessage(compressed: true, properties: ["Profile": "blob"], body: body))
        #expect(reply.body.count == body.count)
        #expect(reply.body == body)
        #expect(reply.compressed)
        await client.close()
    }

    @Test func closingFailsPendingRequests() async throws {
        let arrived = AsyncStream<Void>.makeStream()
        let (client, server) = Self.pair { _ in arrived.continuation.yield() }  // never answers
        let pending = Task { try await client.sendRequest(BLIPMessage(properties: ["Profile": "slow"])) }
        var events = arrived.stream.makeAsyncIterator()
        await events.next()
        await client.close(code: 1001, reason: "going away")
        let result = await pending.result
        #expect(throws: BLIPError.closed(code: 1001, reason: "going away")) { try result.get() }
        await #expect(throws: BLIPError.closed(code: 1001, reason: "going away")) {
            try await client.sendRequest(BLIPMessage())
        }
        #expect(await server.waitUntilClosed() == .closed(code: 1001, reason: "going away"))
        #expect(client.isClosed && client.closeReason == nil)
    }

    @Test func peerClosingFailsPendingRequests() async throws {
        let arrived = AsyncStream<Void>.makeStream()
        let (client, server) = Self.pair { _ in arrived.continuation.yield() }
        let pending = Task { try await client.sendRequest(BLIPMessage(properties: ["Profile": "slow"])) }
        var events = arrived.stream.makeAsyncIterator()
        await events.next()
        await server.close()
        let result = await pending.result
        #expect(throws: BLIPError.closed(code: 1000, reason: "the peer closed the connection")) { try result.get() }
        #expect(await client.waitUntilClosed() == nil)
    }

    @Test func cancellingARequestLeavesTheConnectionUsable() async throws {
        let arrived = AsyncStream<BLIPIncomingRequest>.makeStream()
        let (client, _) = Self.pair { request in
            if request.profile == "slow" { arrived.continuation.yield(request) } else { await Self.echo(request) }
        }
        let caller = Task { try await client.sendRequest(BLIPMessage(properties: ["Profile": "slow"])) }
        var slow = arrived.stream.makeAsyncIterator()
        let request = try #require(await slow.next())
        caller.cancel()
        await #expect(throws: CancellationError.self) { try await caller.value }
        await request.respond(body: [9])  // arrives after the cancellation and is dropped
        let reply = try await client.sendRequest(BLIPMessage(properties: ["Profile": "echo"], body: [1]))
        #expect(reply.body == [1] && reply.number == 2)
        #expect(!client.isClosed)
        await client.close()
    }

    @Test func badFrameFromThePeerClosesWithProtocolError() async throws {
        let (clientEnd, rawPeer) = InMemoryBLIPTransport.pair()
        let client = BLIPConnection(transport: clientEnd)
        client.start()
        var peerFrames = rawPeer.incoming.makeAsyncIterator()
        let pending = Task { try await client.sendRequest(BLIPMessage(properties: ["Profile": "x"])) }
        _ = try await peerFrames.next()  // the request arrived
        try await rawPeer.send([0x01, 0x01, 0x00, 0xDE, 0xAD, 0xBE, 0xEF])  // RPY #1 with a wrong checksum
        let failure = await client.waitUntilClosed()
        guard case let .protocolViolation(detail) = failure else {
            Issue.record("expected a protocol violation, got \(String(describing: failure))")
            return
        }
        #expect(detail.contains("checksum mismatch"))
        let result = await pending.result
        #expect(throws: failure!) { try result.get() }
        do {
            while try await peerFrames.next() != nil {}
            Issue.record("the peer should see a close with an error")
        } catch let BLIPError.closed(code, reason) {
            #expect(code == 1002)
            #expect(reason.hasPrefix("the peer broke the BLIP protocol: checksum mismatch"))
            #expect(reason.utf8.count <= 123)
        }
    }

    @Test func oversizedIncomingMessageClosesTheConnection() async throws {
        let (client, server) = Self.pair(maxMessageSize: 10_000)
        await #expect(throws: BLIPError.self) {
            try await client.sendRequest(BLIPMessage(properties: ["Profile": "big"], body: [UInt8](repeating: 1, count: 20_000)))
        }
        #expect(await server.waitUntilClosed() == .messageTooLarge(limit: 10_000))
        // 1009: "message too big" (RFC 6455 §7.4.1), not a generic protocol error.
        #expect(await client.waitUntilClosed() == .closed(code: 1009, reason: BLIPConnection.closeReason(
            BLIPError.messageTooLarge(limit: 10_000).description)))
    }

    @Test func encodingErrorsThrowBeforeAnythingIsSent() async throws {
        let (client, _) = Self.pair()
        await #expect(throws: BLIPError.invalidMessage("property \"bad\" contains a NUL byte")) {
            try await client.sendRequest(BLIPMessage(properties: ["bad": "a\u{0}"]))
        }
        let reply = try await client.sendRequest(BLIPMessage(properties: ["Profile": "echo"]))
        #expect(reply.number == 1, "the failed request used no number")
        await client.close()
    }
}

/// The outbox's flow control, step by step (no transport).
@Suite(.ownThreads) struct OutboxFlowControlTests {
    @Test func bigMessagePausesUntilAcknowledged() throws {
        var state = BLIPConnectionState(maxMessageSize: 1 << 20)
        var generator = SplitMix64(seed: 1)
        let body = TestBytes.random(1_000_000, compressible: false, using: &generator)
        let big = try BLIPOutgoingMessage(BLIPMessage(number: 1, body: body))
        _ = state.enqueue(.init(message: big, urgent: false))
        var sent: UInt64 = 0
        var frames = 0
        while case let .send(frame, _) = state.nextWriterStep() {
            sent += UInt64(frame.count - 2)
            frames += 1
        }
        // Paused once 128,000 bytes are unacknowledged: 8 frames of 16,382.
        #expect(frames == 8 && sent == 131_056)
        #expect(state.outbox.isEmpty && state.icebox.count == 1)
        guard case .wait = state.nextWriterStep() else { Issue.record("expected the writer to wait"); return }

        // An urgent message still goes out while the big one is paused.
        _ = state.enqueue(.init(message: try BLIPOutgoingMessage(BLIPMessage(number: 2, urgent: true)), urgent: true))
        guard case let .send(urgentFrame, _) = state.nextWriterStep() else { Issue.record("urgent frame"); return }
        #expect(urgentFrame[0] == 2)

        // The peer's ACK of the first 4 frames thaws it.
        var reader = BLIPFrameReader()
        _ = try reader.read(BLIPAck(acknowledgesReply: false, number: 1, byteCount: 65_528).frame)
        _ = state.received(BLIPAck(acknowledgesReply: false, number: 1, byteCount: 65_528).frame)
        #expect(state.icebox.isEmpty && state.outbox.count == 1)
        guard case let .send(next, _) = state.nextWriterStep() else { Issue.record("expected a frame"); return }
        #expect(next[0] == 1)
    }

    @Test func urgentMessagesQueueAsLiteCoreDoes() throws {
        var state = BLIPConnectionState(maxMessageSize: 1 << 20)
        func message(_ number: UInt64, urgent: Bool = false, size: Int = 1) throws -> BLIPConnectionState.OutboxEntry {
            .init(message: try BLIPOutgoingMessage(BLIPMessage(number: number, urgent: urgent,
                                                               body: [UInt8](repeating: 1, count: size))),
                  urgent: urgent)
        }
        // Two big normal messages under way, one normal one not started.
        _ = state.enqueue(try message(1, size: 40_000))
        _ = state.enqueue(try message(2, size: 40_000))
        guard case .send = state.nextWriterStep(), case .send = state.nextWriterStep() else {
            Issue.record("frames"); return
        }
        _ = state.enqueue(try message(3))
        #expect(state.outbox.map { $0.message?.number } == [1, 2, 3])
        // A new urgent message goes after the unstarted #3 (request numbers stay in order)...
        _ = state.enqueue(try message(4, urgent: true))
        #expect(state.outbox.map { $0.message?.number } == [1, 2, 3, 4])
        // ...and the next urgent one after it.
        _ = state.enqueue(try message(5, urgent: true))
        #expect(state.outbox.map { $0.message?.number } == [1, 2, 3, 4, 5])
        // An ACK (urgent, new) likewise; a normal message at the end.
        _ = state.enqueue(.init(message: nil, ackFrame: [9, 0x34, 1], urgent: true))
        _ = state.enqueue(try message(6))
        var order: [UInt8] = []
        var sizes: [Int] = []
        while case let .send(frame, _) = state.nextWriterStep() {
            order.append(frame[0])
            sizes.append(frame.count)
        }
        // Round robin, frame by frame: #1 and #2 send their 2nd and 3rd frames in turns.
        #expect(order == [1, 2, 3, 4, 5, 9, 6, 1, 2])
        #expect(sizes.prefix(2) == [16_384, 16_384])
    }

    @Test func normalFramesShrinkWhileAnUrgentMessageIsNext() throws {
        var state = BLIPConnectionState(maxMessageSize: 1 << 20)
        state.outbox = [.init(message: try BLIPOutgoingMessage(BLIPMessage(number: 1, body: [UInt8](repeating: 1, count: 40_000))), urgent: false),
                        .init(message: try BLIPOutgoingMessage(BLIPMessage(number: 2, urgent: true)), urgent: true)]
        guard case let .send(small, _) = state.nextWriterStep() else { Issue.record("frame"); return }
        #expect(small.count == 4_096)
        guard case let .send(urgent, _) = state.nextWriterStep() else { Issue.record("frame"); return }
        #expect(urgent[0] == 2)
        guard case let .send(big, _) = state.nextWriterStep() else { Issue.record("frame"); return }
        #expect(big.count == 16_384)
    }
}
