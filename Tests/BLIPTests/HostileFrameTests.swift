import Testing
import TestSupport
@testable import BLIP

/// Frames a hostile peer sends on purpose (issue 37): each is refused with a `BLIPError` whose
/// close code says why, never a trap, and nothing is held past the reader's limits.
@Suite(.ownThreads) struct HostileFrameTests {
    /// One frame with a correct checksum around `payload` (the reader's running checksum
    /// starts at zero for a fresh reader).
    static func frame(number: UInt64, flags: UInt8, payload: [UInt8]) -> [UInt8] {
        var frame = BLIPVarint.encode(number) + BLIPVarint.encode(UInt64(flags)) + payload
        let checksum = CRC32.checksum(payload)
        frame += [UInt8(checksum >> 24), UInt8(truncatingIfNeeded: checksum >> 16),
                  UInt8(truncatingIfNeeded: checksum >> 8), UInt8(truncatingIfNeeded: checksum)]
        return frame
    }

    /// The properties length of the crash in issue 37: nine bytes, a value near 2⁶³.
    static let hugeLength: [UInt8] = [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x7F]

    /// A streamed reply (a blob the listener fetched with `getAttachment`) whose properties
    /// length is near `Int.max` once crashed the process on an overflow.
    @Test(arguments: [false, true])
    func aStreamedReplyWithAHugePropertiesLengthIsRefused(moreComing: Bool) throws {
        var reader = BLIPFrameReader(maxMessageSize: 1 << 20, checksReplyNumbers: true)
        reader.expectReply(to: 1, streamingBody: true)
        let flags = BLIPMessage.Kind.reply.rawValue | (moreComing ? BLIPFrameFlags.moreComing.rawValue : 0)
        let error = #expect(throws: BLIPError.self) {
            _ = try reader.read(Self.frame(number: 1, flags: flags, payload: Self.hugeLength + [1, 2, 3]))
        }
        guard case .protocolViolation(let detail)? = error else {
            Issue.record("expected a protocol violation, got \(String(describing: error))")
            return
        }
        #expect(detail.contains("properties length"))
        #expect(error?.closeCode == 1002)
    }

    /// Every properties length from 0 to 2⁶⁴−1 in a streamed reply: refused or read, never a trap.
    @Test func everyPropertiesLengthOfAStreamedReplyIsReadOrRefused() throws {
        let lengths: [UInt64] = [0, 1, 100 * 1024, 100 * 1024 + 1, UInt64(Int.max) - 1, UInt64(Int.max),
                                 UInt64(Int.max) + 1, UInt64.max - 1, UInt64.max]
        for length in lengths {
            var reader = BLIPFrameReader(maxMessageSize: 1 << 20, checksReplyNumbers: true)
            reader.expectReply(to: 1, streamingBody: true)
            let frame = Self.frame(number: 1, flags: BLIPMessage.Kind.reply.rawValue | BLIPFrameFlags.moreComing.rawValue,
                                   payload: BLIPVarint.encode(length) + [0])
            do {
                _ = try reader.read(frame)
                #expect(length <= 100 * 1024)
            } catch BLIPError.protocolViolation(let detail) {
                // Small lengths may be refused for what follows them (here a lone NUL).
                if length > 100 * 1024 { #expect(detail.contains("properties length"), "length \(length): \(detail)") }
            }
        }
    }

    /// A varint split across frames is still completed by the next frame.
    @Test func aPropertiesLengthSplitAcrossFramesIsCompleted() throws {
        var reader = BLIPFrameReader(maxMessageSize: 1 << 20, checksReplyNumbers: true)
        reader.expectReply(to: 1, streamingBody: true)
        var writer = BLIPFrameWriter()
        let properties: BLIPProperties = ["Content-Type": String(repeating: "x", count: 200)]
        let reply = BLIPMessage(kind: .reply, number: 1, properties: properties, body: Array(repeating: 7, count: 300))
        var chunks: [UInt8] = []
        var result: BLIPMessage?
        for frame in try writer.frames(for: reply, maxFrameSize: 7) {
            let output = try reader.read(frame)
            chunks += output.bodyChunk?.bytes ?? []
            result = output.message ?? result
        }
        #expect(result?.properties == properties)
        #expect(chunks == Array(repeating: 7, count: 300))
    }

    /// Requests that never finish (issue 37: 2,000 of 32 KiB each on one connection) are
    /// refused once more than `maxOpenMessages` are under way.
    @Test func tooManyUnfinishedMessagesAreRefused() throws {
        let limits = BLIPLimits(maxMessageSize: 1 << 20, maxOpenMessages: 8, maxIncompleteBytes: 1 << 30)
        var reader = BLIPFrameReader(limits: limits, checksReplyNumbers: true)
        var writer = BLIPFrameWriter()
        var refusedAt: Int?
        for number in 1...20 {
            let request = BLIPMessage(kind: .request, number: UInt64(number), properties: ["Profile": "rev"],
                                      body: Array(repeating: 1, count: 4096))
            var outgoing = try BLIPOutgoingMessage(request)
            let first = try writer.nextFrame(of: &outgoing, maxFrameSize: 1024)
            do {
                _ = try reader.read(first)
            } catch let error as BLIPError {
                guard case .limitExceeded = error else { throw error }
                #expect(error.closeCode == 1008)
                refusedAt = number
                break
            }
        }
        #expect(refusedAt == 9)
    }

    /// Unfinished messages together may not hold more than `maxIncompleteBytes`.
    @Test func unfinishedMessagesHoldAtMostTheirBudget() throws {
        let limits = BLIPLimits(maxMessageSize: 1 << 20, maxOpenMessages: 1000, maxIncompleteBytes: 64 * 1024)
        var reader = BLIPFrameReader(limits: limits, checksReplyNumbers: true)
        var writer = BLIPFrameWriter()
        var held = 0
        let error = #expect(throws: BLIPError.self) {
            for number in 1...100 {
                let request = BLIPMessage(kind: .request, number: UInt64(number), properties: ["Profile": "rev"],
                                          body: Array(repeating: 1, count: 32 * 1024))
                var outgoing = try BLIPOutgoingMessage(request)
                let first = try writer.nextFrame(of: &outgoing, maxFrameSize: 16 * 1024)
                _ = try reader.read(first)
                held += first.count
            }
        }
        guard case .limitExceeded? = error else {
            Issue.record("expected limitExceeded, got \(String(describing: error))")
            return
        }
        #expect(held <= 64 * 1024)
    }

    /// A compressed frame inflating far past the shared budget stops at the budget.
    @Test func anInflateBombStopsAtTheConnectionBudget() throws {
        let limits = BLIPLimits(maxMessageSize: 64 << 20, maxOpenMessages: 100, maxIncompleteBytes: 1 << 20)
        var reader = BLIPFrameReader(limits: limits, checksReplyNumbers: true)
        var writer = BLIPFrameWriter()
        let bomb = BLIPMessage(kind: .request, number: 1, compressed: true, properties: ["Profile": "rev"],
                               body: [UInt8](repeating: 0, count: 8 << 20))
        var outgoing = try BLIPOutgoingMessage(bomb)
        // Zeros deflate so well that the whole 8 MiB fits one 64 KiB frame, as LiteCore cuts it.
        let frame = try writer.nextFrame(of: &outgoing, maxFrameSize: 1 << 16)
        let error = #expect(throws: BLIPError.self) { _ = try reader.read(frame) }
        guard case .limitExceeded? = error else {
            Issue.record("expected limitExceeded, got \(String(describing: error))")
            return
        }
    }

    /// The payload a bomb inflates into never reserves more than the limit allows.
    @Test func inflatingReservesNoMoreThanTheLimit() throws {
        let limit = 3_000_000
        var writer = BLIPFrameWriter()
        let bomb = BLIPMessage(kind: .request, number: 1, compressed: true, body: [UInt8](repeating: 0, count: 8 << 20))
        var outgoing = try BLIPOutgoingMessage(bomb)
        let frame = try writer.nextFrame(of: &outgoing, maxFrameSize: 1 << 16)
        var index = 0
        _ = try BLIPVarint.read(frame, at: &index)
        _ = try BLIPVarint.read(frame, at: &index)
        let stream = try InflateStream()
        var output: [UInt8] = []
        #expect(throws: BLIPError.messageTooLarge(limit: limit)) {
            try stream.inflate(Array(frame[index..<frame.count - 4]) + [0, 0, 0xFF, 0xFF], appendingTo: &output,
                               limit: limit, reportedLimit: limit)
        }
        // Doubling would have reserved 4 MiB; malloc may round the reservation up a little.
        #expect(output.capacity <= limit + limit / 100)
    }
}
