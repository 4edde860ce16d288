import Testing
import TestSupport
@testable import BLIP

/// Mutation fuzzing of everything a peer's bytes reach in BLIP: the frame reader (header
/// varints, flags, checksums, reassembly, ACKs), the inflate stream and the properties codec.
/// Seeds are the real Couchbase Lite 2.8 captures. Every input is read or refused with a
/// `BLIPError`; nothing is buffered past the reader's `maxMessageSize`.
@Suite(.ownThreads) struct FrameFuzzTests {
    /// The limit the fuzzed readers run with: small, so a length or inflate bomb would show.
    static let limit = 1 << 20

    /// One direction of one connection of each capture: its frames in order.
    static func frameStreams() throws -> [[[UInt8]]] {
        var streams: [[[UInt8]]] = []
        for name in Capture.names {
            let capture = try Capture(name)
            var byStream: [String: [[UInt8]]] = [:]
            for frame in capture.frames { byStream["\(frame.connection)-\(frame.direction)", default: []].append(frame.bytes) }
            streams += byStream.keys.sorted().compactMap { byStream[$0].map { Array($0.prefix(40)) } }
        }
        return streams
    }

    /// Every message of the captures, decoded.
    static func messages(of streams: [[[UInt8]]]) throws -> [BLIPMessage] {
        var messages: [BLIPMessage] = []
        for stream in streams {
            var reader = BLIPFrameReader()
            for frame in stream { if let message = try reader.read(frame).message { messages.append(message) } }
        }
        return messages
    }

    /// Reads `frames` with a fresh reader until one is refused.
    static func read(_ frames: [[UInt8]]) -> FuzzCampaign.Outcome {
        var reader = BLIPFrameReader(maxMessageSize: limit)
        do {
            for frame in frames {
                let output = try reader.read(frame)
                if let message = output.message {
                    #expect(message.body.count <= limit)
                    _ = message.profile
                    _ = message.properties.pairs.count
                }
            }
            return .accepted
        } catch let error as BLIPError {
            if case .messageTooLarge(let reported) = error { #expect(reported == limit) }
            return .rejected
        } catch {
            Issue.record("the frame reader threw \(type(of: error)), not BLIPError: \(error)")
            return .rejected
        }
    }

    /// A captured frame stream with one to three frames mutated, dropped, repeated or swapped.
    @Test func mutatedCapturedFrameStreamsAreReadOrRefused() throws {
        let streams = try Self.frameStreams()
        let campaign = FuzzCampaign.run("BLIP frame streams", seed: 0xB11B_0001, inputs: 2500) { random in
            var frames = streams[Int.random(in: 0..<streams.count, using: &random)]
            for _ in 0..<Int.random(in: 1...3, using: &random) where !frames.isEmpty {
                let index = Int.random(in: 0..<frames.count, using: &random)
                switch Int.random(in: 0..<6, using: &random) {
                case 0: frames.remove(at: index)
                case 1: frames.insert(frames[index], at: index)
                case 2: frames.swapAt(index, Int.random(in: 0..<frames.count, using: &random))
                default: frames[index] = FuzzMutator.mutate(frames[index], &random)
                }
            }
            return Self.read(frames)
        }
        #expect(campaign.rejected > 0)
        #expect(campaign.slowest < FuzzCampaign.perInputLimit)
    }

    /// Frames with a correct checksum around a mutated payload (so the reader gets past the
    /// checksum to the properties), with random flags and numbers; compressed ones carry
    /// mutated deflate data.
    @Test func checksummedFramesWithMutatedPayloadsAreReadOrRefused() throws {
        let messages = try Self.messages(of: Self.frameStreams())
        let payloads = try messages.map { try $0.encodedPayload() }
        let campaign = try FuzzCampaign.run("BLIP frames and inflate", seed: 0xB11B_0002, inputs: 4000) { random in
            var message = messages[Int.random(in: 0..<messages.count, using: &random)]
            var frames: [[UInt8]]
            if Int.random(in: 0..<3, using: &random) == 0 {
                // Compressed: a real deflate stream of the message, its data mutated.
                message.number = 1
                message.kind = .request
                message.compressed = true
                var writer = BLIPFrameWriter()
                frames = try writer.frames(for: message, maxFrameSize: Int.random(in: 64...4096, using: &random))
                let index = Int.random(in: 0..<frames.count, using: &random)
                frames[index] = FuzzMutator.mutate(frames[index], &random)
            } else {
                let payload = FuzzMutator.mutate(payloads[Int.random(in: 0..<payloads.count, using: &random)], &random)
                var frame = BLIPVarint.encode(UInt64.random(in: 0...3, using: &random))
                frame += BLIPVarint.encode(UInt64(UInt8.random(in: 0...0x7F, using: &random) & ~BLIPFrameFlags.compressed.rawValue))
                frame += payload
                let checksum = CRC32.checksum(payload)
                frame += [UInt8(checksum >> 24), UInt8(truncatingIfNeeded: checksum >> 16),
                          UInt8(truncatingIfNeeded: checksum >> 8), UInt8(truncatingIfNeeded: checksum)]
                frames = [frame]
            }
            return Self.read(frames)
        }
        #expect(campaign.accepted > 0 && campaign.rejected > 0)
        #expect(campaign.slowest < FuzzCampaign.perInputLimit)
    }

    /// Small compressed frames that inflate far past the limit are refused, not buffered.
    @Test func anInflateBombIsRefusedAtTheLimit() throws {
        var writer = BLIPFrameWriter()
        let bomb = BLIPMessage(kind: .request, number: 1, compressed: true,
                               properties: ["Profile": "rev"], body: [UInt8](repeating: 0, count: 8 * Self.limit))
        let frames = try writer.frames(for: bomb, maxFrameSize: 1 << 16)
        var reader = BLIPFrameReader(maxMessageSize: Self.limit)
        var fed = 0
        let error = #expect(throws: BLIPError.self) {
            for frame in frames {
                fed += frame.count
                _ = try reader.read(frame)
            }
        }
        #expect(error == .messageTooLarge(limit: Self.limit))
        #expect(fed < 64 * 1024, "refused only after \(fed) compressed bytes")
    }

    /// Replies registered as streamed (a blob fetched with `getAttachment`), cut into one to
    /// four frames with correct running checksums, their payloads mutated: the streamed
    /// path parses the properties length itself, and a length near 2⁶³ once trapped there
    /// (issue 37) because no fuzzer registered a streamed reply.
    @Test func mutatedStreamedRepliesAreReadOrRefused() throws {
        let messages = try Self.messages(of: Self.frameStreams())
        let payloads = try messages.map { try $0.encodedPayload() }
        let tokens: [[UInt8]] = [HostileFrameTests.hugeLength, [0xFF, 0xFF, 0xFF, 0xFF, 0x0F], [0x80], [0]]
        let campaign = FuzzCampaign.run("BLIP streamed replies", seed: 0xB11B_0004, inputs: 4000) { random in
            var payload = payloads[Int.random(in: 0..<payloads.count, using: &random)]
            if Int.random(in: 0..<4, using: &random) == 0 {
                payload = tokens[Int.random(in: 0..<tokens.count, using: &random)] + payload
            }
            payload = FuzzMutator.mutate(payload, &random, tokens: tokens)
            let pieces = Int.random(in: 1...4, using: &random)
            var cuts = (0..<pieces - 1).map { _ in Int.random(in: 0...payload.count, using: &random) }.sorted()
            cuts = [0] + cuts + [payload.count]
            let number = UInt64.random(in: 1...2, using: &random)
            var frames: [[UInt8]] = []
            var checksum: UInt32 = 0
            for piece in 0..<pieces {
                let chunk = Array(payload[cuts[piece]..<cuts[piece + 1]])
                var flags = BLIPMessage.Kind.reply.rawValue
                if piece < pieces - 1 { flags |= BLIPFrameFlags.moreComing.rawValue }
                if Int.random(in: 0..<8, using: &random) == 0 { flags = UInt8.random(in: 0...0x7F, using: &random) & ~0x08 }
                checksum = CRC32.checksum(chunk, continuing: checksum)
                var frame = BLIPVarint.encode(number) + BLIPVarint.encode(UInt64(flags)) + chunk
                frame += [UInt8(checksum >> 24), UInt8(truncatingIfNeeded: checksum >> 16),
                          UInt8(truncatingIfNeeded: checksum >> 8), UInt8(truncatingIfNeeded: checksum)]
                frames.append(frame)
            }
            var reader = BLIPFrameReader(maxMessageSize: Self.limit, checksReplyNumbers: true)
            reader.expectReply(to: 1, streamingBody: true)
            reader.expectReply(to: 2, streamingBody: true)
            var streamed = 0
            do {
                for frame in frames {
                    let output = try reader.read(frame)
                    streamed += output.bodyChunk?.bytes.count ?? 0
                    if let message = output.message { #expect(message.body.count <= Self.limit) }
                }
                #expect(streamed <= payload.count)
                return .accepted
            } catch is BLIPError {
                return .rejected
            } catch {
                Issue.record("the frame reader threw \(type(of: error)), not BLIPError: \(error)")
                return .rejected
            }
        }
        #expect(campaign.accepted > 0 && campaign.rejected > 0)
        #expect(campaign.slowest < FuzzCampaign.perInputLimit)
    }

    @Test func mutatedPropertiesBlocksAreDecodedOrRefused() throws {
        let messages = try Self.messages(of: Self.frameStreams())
        let blocks = try messages.map { try $0.properties.encoded() }
        let campaign = FuzzCampaign.run("BLIP properties", seed: 0xB11B_0003, inputs: 5000) { random in
            let input = FuzzMutator.mutate(blocks[Int.random(in: 0..<blocks.count, using: &random)], &random,
                                           tokens: [[0], [0xFF, 0xFF, 0xFF, 0xFF, 0x0F], Array("Profile".utf8)])
            do {
                let (properties, length) = try BLIPProperties.decode(from: input)
                #expect(length <= input.count)
                // What decodes re-encodes to a block that decodes the same.
                #expect(try BLIPProperties.decode(from: properties.encoded()).properties == properties)
                return .accepted
            } catch is BLIPError {
                return .rejected
            } catch {
                Issue.record("properties decoding threw \(type(of: error)), not BLIPError")
                return .rejected
            }
        }
        #expect(campaign.accepted > 0 && campaign.rejected > 0)
        #expect(campaign.slowest < FuzzCampaign.perInputLimit)
    }
}

/// CRC-32 (IEEE, zlib's `crc32`), for building frames whose checksum is right.
enum CRC32 {
    static let table: [UInt32] = (0..<256).map { index in
        var value = UInt32(index)
        for _ in 0..<8 { value = value & 1 != 0 ? 0xEDB8_8320 ^ (value >> 1) : value >> 1 }
        return value
    }

    /// zlib's `crc32(previous, bytes)`: continues a running checksum.
    static func checksum(_ bytes: [UInt8], continuing previous: UInt32 = 0) -> UInt32 {
        var crc: UInt32 = previous ^ 0xFFFF_FFFF
        for byte in bytes { crc = table[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8) }
        return crc ^ 0xFFFF_FFFF
    }
}
