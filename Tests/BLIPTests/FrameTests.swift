import CZlib
import Testing
import TestSupport
@testable import BLIP

/// Writer → reader round trips, zlib interoperability, and malformed input.
@Suite(.ownThreads) struct FrameTests {
    @Test(arguments: [1 as UInt64, 2, 3, 4])
    func randomMessagesRoundTripThroughWriterAndReader(seed: UInt64) throws {
        var generator = SplitMix64(seed: seed)
        var writer = BLIPFrameWriter()
        var reader = BLIPFrameReader()
        let frameSizes = [64, 300, 1_024, BLIPFrameWriter.defaultFrameSize, BLIPFrameWriter.bigFrameSize]
        var requestNumber: UInt64 = 0
        for _ in 0..<30 {
            let kind: BLIPMessage.Kind = generator.next() % 3 == 0 ? .reply : .request
            if kind == .request { requestNumber += 1 }
            let message = TestBytes.randomMessage(number: kind == .request ? requestNumber : generator.next() % 1000,
                                                  kind: kind, using: &generator)
            let frameSize = frameSizes[Int(generator.next() % UInt64(frameSizes.count))]
            let frames = try writer.frames(for: message, maxFrameSize: frameSize,
                                           streamingBody: generator.next() % 4 == 0)
            for (index, frame) in frames.enumerated() {
                let output = try reader.read(frame)
                #expect((frame[BLIPVarint.encode(message.number).count] & 0x40 != 0) == (index < frames.count - 1))
                if index < frames.count - 1 {
                    #expect(output.message == nil)
                } else {
                    #expect(output.message == message)
                }
                if !message.compressed && frameSize >= 1_024 {
                    #expect(frame.count <= frameSize)
                }
            }
        }
    }

    @Test func interleavedMessagesShareTheDirectionsChecksumAndDeflateStream() throws {
        var generator = SplitMix64(seed: 99)
        var writer = BLIPFrameWriter()
        var reader = BLIPFrameReader()
        var first = try BLIPOutgoingMessage(BLIPMessage(number: 1, compressed: true, properties: ["Profile": "a"],
                                                        body: TestBytes.random(50_000, compressible: true, using: &generator)))
        var second = try BLIPOutgoingMessage(BLIPMessage(number: 2, compressed: false, properties: ["Profile": "b"],
                                                         body: TestBytes.random(30_000, compressible: false, using: &generator)))
        var completed: [BLIPMessage] = []
        while first.hasMoreFrames || second.hasMoreFrames {
            for index in 0..<2 {
                let frame: [UInt8]
                if index == 0 {
                    guard first.hasMoreFrames else { continue }
                    frame = try writer.nextFrame(of: &first, maxFrameSize: 4_096)
                } else {
                    guard second.hasMoreFrames else { continue }
                    frame = try writer.nextFrame(of: &second, maxFrameSize: 4_096)
                }
                if let message = try reader.read(frame).message { completed.append(message) }
            }
        }
        // The compressible one needs fewer frames and completes first.
        #expect(completed.map(\.profile) == ["a", "b"])
        #expect(completed.map(\.body.count) == [50_000, 30_000])
    }

    @Test func emptyCompressedFramesKeepTheInflateStreamInStep() throws {
        // Properties fill the first 300-byte frame; the body (16 KiB, streamed) ends with an
        // empty read that LiteCore sends as a frame of its own.
        var generator = SplitMix64(seed: 12)
        var properties = BLIPProperties()
        for index in 0..<20 { properties["key\(index)"] = String(repeating: "v", count: 20) }
        let message = BLIPMessage(number: 1, compressed: true, properties: properties,
                                  body: TestBytes.random(16_384, compressible: true, using: &generator))
        var writer = BLIPFrameWriter()
        let frames = try writer.frames(for: message, maxFrameSize: 1_100, streamingBody: true)
        let last = try #require(frames.last)
        #expect(last.count == 6 && last[1] & BLIPFrameFlags.compressed.rawValue == 0)
        var reader = BLIPFrameReader()
        var decoded: BLIPMessage?
        for frame in frames { decoded = try reader.read(frame).message ?? decoded }
        #expect(decoded?.body == message.body)
        // LiteCore's form of that frame: flagged compressed, no data.
        var liteCoreForm = frames
        liteCoreForm[liteCoreForm.count - 1][1] |= BLIPFrameFlags.compressed.rawValue
        var other = BLIPFrameReader()
        decoded = nil
        for frame in liteCoreForm { decoded = try other.read(frame).message ?? decoded }
        #expect(decoded?.body == message.body)
        // And the stream is still in step for the next message.
        let next = BLIPMessage(number: 2, compressed: true, body: Array("after".utf8))
        #expect(try other.read(writer.frames(for: next)[0]).message == next)
    }

    @Test func copiesOfAWriterAreIndependent() throws {
        var writer = BLIPFrameWriter()
        let message = BLIPMessage(number: 1, compressed: true, body: Array(repeating: 7, count: 1_000))
        _ = try writer.frames(for: message)
        var copy = writer
        let fromCopy = try copy.frames(for: message)
        let fromOriginal = try writer.frames(for: message)
        #expect(fromCopy == fromOriginal)
    }

    /// A frame our writer compressed inflates with a separate zlib raw inflate.
    @Test func compressedFramesInflateWithPlainZlib() throws {
        var generator = SplitMix64(seed: 7)
        let body = TestBytes.random(40_000, compressible: true, using: &generator)
        let message = BLIPMessage(number: 1, compressed: true, properties: ["Profile": "rev"], body: body)
        var writer = BLIPFrameWriter()
        let frames = try writer.frames(for: message)
        var inflated: [UInt8] = []
        var stream = z_stream()
        #expect(czlib_inflateInit2(&stream, -15) == Z_OK)
        defer { inflateEnd(&stream) }
        for frame in frames {
            var data = Array(frame[2..<frame.count - 4]) + [0, 0, 0xFF, 0xFF]
            var output = [UInt8](repeating: 0, count: 200_000)
            let produced = data.withUnsafeMutableBufferPointer { input in
                output.withUnsafeMutableBufferPointer { out in
                    stream.next_in = input.baseAddress
                    stream.avail_in = uInt(input.count)
                    stream.next_out = out.baseAddress
                    stream.avail_out = uInt(out.count)
                    let status = inflate(&stream, Z_SYNC_FLUSH)
                    #expect(status == Z_OK)
                    #expect(stream.avail_in == 0)
                    return out.count - Int(stream.avail_out)
                }
            }
            inflated += output[0..<produced]
        }
        #expect(inflated == (try message.encodedPayload()))
    }

    /// Frames deflated by plain zlib (other parameters than ours: memLevel 8, level 9) decode.
    @Test func framesDeflatedByPlainZlibDecode() throws {
        var generator = SplitMix64(seed: 8)
        var stream = z_stream()
        #expect(czlib_deflateInit2(&stream, 9, -15, 8) == Z_OK)
        defer { deflateEnd(&stream) }
        var reader = BLIPFrameReader()
        var checksum: uLong = crc32(0, nil, 0)
        for number in 1...3 as ClosedRange<UInt64> {
            let message = BLIPMessage(number: number, compressed: true, properties: ["n": "\(number)"],
                                      body: TestBytes.random(10_000, compressible: true, using: &generator))
            var payload = try message.encodedPayload()
            var output = [UInt8](repeating: 0, count: 20_000)
            let produced = payload.withUnsafeMutableBufferPointer { input in
                output.withUnsafeMutableBufferPointer { out in
                    stream.next_in = input.baseAddress
                    stream.avail_in = uInt(input.count)
                    stream.next_out = out.baseAddress
                    stream.avail_out = uInt(out.count)
                    #expect(deflate(&stream, Z_SYNC_FLUSH) == Z_OK)
                    checksum = crc32(checksum, input.baseAddress, uInt(input.count))
                    return out.count - Int(stream.avail_out)
                }
            }
            #expect(Array(output[produced - 4..<produced]) == [0, 0, 0xFF, 0xFF])
            var frame = BLIPVarint.encode(number) + [BLIPFrameFlags.compressed.rawValue]
            frame += output[0..<produced - 4]
            withUnsafeBytes(of: UInt32(checksum).bigEndian) { frame += $0 }
            #expect(try reader.read(frame).message == message)
        }
    }

    // MARK: Malformed input

    static func frames(of message: BLIPMessage, maxFrameSize: Int = 16_384) throws -> [[UInt8]] {
        var writer = BLIPFrameWriter()
        return try writer.frames(for: message, maxFrameSize: maxFrameSize)
    }

    static func violation(_ body: () throws -> Void) -> String? {
        do {
            try body()
        } catch let BLIPError.protocolViolation(detail) {
            return detail
        } catch {
            Issue.record("expected a protocol violation, got \(error)")
        }
        return nil
    }

    @Test(arguments: [false, true])
    func corruptedChecksumIsRejected(compressed: Bool) throws {
        var frame = try #require(try Self.frames(of: BLIPMessage(number: 1, compressed: compressed,
                                                                 body: Array("hello".utf8))).first)
        frame[frame.count - 1] ^= 0x01
        var reader = BLIPFrameReader()
        let detail = Self.violation { _ = try reader.read(frame) }
        #expect(detail?.contains("checksum mismatch in a frame of request #1") == true)
    }

    @Test func corruptedDeflateDataIsRejected() throws {
        var frame = try #require(try Self.frames(of: BLIPMessage(number: 1, compressed: true,
                                                                 body: Array(repeating: 65, count: 500))).first)
        for index in 2..<frame.count - 4 { frame[index] = 0xFF }
        var reader = BLIPFrameReader()
        #expect(Self.violation { _ = try reader.read(frame) } != nil)
    }

    @Test func truncatedFramesAreRejected() throws {
        var reader = BLIPFrameReader()
        #expect(Self.violation { _ = try reader.read([]) } == "frame message number is truncated")
        #expect(Self.violation { _ = try reader.read([0x01]) } == "frame flags is truncated")
        #expect(Self.violation { _ = try reader.read([0x01, 0x00, 0xAA, 0xBB]) } == "frame of request #1 ends before its checksum")
        #expect(Self.violation { _ = try reader.read([0x01, 0x04]) } == "ACK byte count is truncated")
        #expect(Self.violation { _ = try reader.read([0x01, 0x80]) } == "frame flags is truncated")
    }

    @Test func replyToNoRequestIsRejected() throws {
        var reader = BLIPFrameReader(checksReplyNumbers: true)
        let reply = try Self.frames(of: BLIPMessage(kind: .reply, number: 7))
        #expect(Self.violation { _ = try reader.read(reply[0]) } == "reply #7 answers no request awaiting a reply")
        var expecting = BLIPFrameReader(checksReplyNumbers: true)
        expecting.expectReply(to: 7)
        #expect(try expecting.read(reply[0]).message?.number == 7)
        let again = try Self.frames(of: BLIPMessage(kind: .error, number: 7))
        #expect(Self.violation { _ = try expecting.read(again[0]) } != nil, "a request is answered once")
    }

    @Test func requestsOutOfSequenceAreRejected() throws {
        var reader = BLIPFrameReader()
        let second = try Self.frames(of: BLIPMessage(number: 2))
        #expect(Self.violation { _ = try reader.read(second[0]) }?.contains("request #2 is out of sequence") == true)
    }

    @Test func badPropertiesInAMessageAreRejected() throws {
        var frame: [UInt8] = [0x01, 0x00, 0x02, UInt8(ascii: "h"), UInt8(ascii: "i")]
        let checksum = UInt32(crc32(0, [0x02, UInt8(ascii: "h"), UInt8(ascii: "i")], 3))
        withUnsafeBytes(of: checksum.bigEndian) { frame += $0 }
        var reader = BLIPFrameReader()
        #expect(Self.violation { _ = try reader.read(frame) } == "properties are not NUL-terminated")
    }

    @Test func oversizedMessagesAreRejected() throws {
        let body = [UInt8](repeating: 0, count: 5_000)
        var plain = BLIPFrameReader(maxMessageSize: 2_000)
        let frames = try Self.frames(of: BLIPMessage(number: 1, body: body), maxFrameSize: 1_024)
        #expect(throws: BLIPError.messageTooLarge(limit: 2_000)) {
            for frame in frames { _ = try plain.read(frame) }
        }
        // 10 MB of zeros deflate to ~10 KB: the reader stops inflating at its limit.
        var bomb = BLIPFrameReader(maxMessageSize: 1 << 20)
        let bombFrames = try Self.frames(of: BLIPMessage(number: 1, compressed: true, body: [UInt8](repeating: 0, count: 10 << 20)))
        #expect(bombFrames[0].count < 16_384)
        #expect(throws: BLIPError.messageTooLarge(limit: 1 << 20)) {
            for frame in bombFrames { _ = try bomb.read(frame) }
        }
    }

    @Test func randomGarbageNeverCrashes() {
        var generator = SplitMix64(seed: 0xBAD)
        for _ in 0..<2_000 {
            var reader = BLIPFrameReader(maxMessageSize: 1 << 16)
            let count = Int(generator.next() % 64)
            var frame = TestBytes.random(count, compressible: false, using: &generator)
            if count > 1 && generator.next() % 2 == 0 { frame[0] = 1 }
            do {
                _ = try reader.read(frame)
            } catch is BLIPError {
            } catch {
                Issue.record("unexpected error \(error)")
            }
        }
    }

    @Test func ackFramesHaveNoChecksum() throws {
        let ack = BLIPAck(acknowledgesReply: true, number: 2, byteCount: 65_508)
        #expect(ack.frame == [0x02, 0x35, 0xE4, 0xFF, 0x03])
        var reader = BLIPFrameReader()
        #expect(try reader.read(ack.frame) == .init(receivedAck: ack))
        #expect(BLIPAck(acknowledgesReply: false, number: 1, byteCount: 5).frame == [0x01, 0x34, 0x05])
    }

    @Test func ackIsDueEvery50000BytesOfAMessage() throws {
        var generator = SplitMix64(seed: 3)
        let message = BLIPMessage(number: 1, body: TestBytes.random(200_000, compressible: false, using: &generator))
        var reader = BLIPFrameReader()
        var received: UInt64 = 0
        var acks: [UInt64] = []
        for frame in try Self.frames(of: message) {
            received += UInt64(frame.count - 2)
            if let ack = try reader.read(frame).ackToSend {
                #expect(ack.byteCount == received && !ack.acknowledgesReply)
                acks.append(ack.byteCount)
            }
        }
        // 16,384-byte frames (16,382 after the header, checksum included): an ACK after every 4th.
        #expect(acks == [65_528, 131_056, 196_584])
    }
}
