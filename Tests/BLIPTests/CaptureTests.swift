import Foundation
import Testing
import TestSupport
@testable import BLIP

/// Real Couchbase Lite 2.8 traffic: every frame decodes, the messages are those the
/// independent transcript lists, ACK decisions match, and the writer reproduces the frames.
@Suite(.ownThreads) struct CaptureTests {
    /// What decoding a capture produced.
    struct Decoded {
        /// Completed messages per direction, in completion order.
        var messages: [String: [BLIPMessage]] = [:]
        /// For each frame (by index in the capture): the message key it belongs to.
        var frameKeys: [Int: MessageKey] = [:]
        /// ACKs our reader decided to send: (frame index, direction the frame came in, ack).
        var acksToSend: [(frame: Int, direction: String, ack: BLIPAck)] = []
        /// ACK frames seen: (frame index, direction, ack).
        var receivedAcks: [(frame: Int, direction: String, ack: BLIPAck)] = []
    }

    struct MessageKey: Hashable {
        var direction: String
        var isReply: Bool
        var number: UInt64
    }

    static func other(_ direction: String) -> String { direction == "c2s" ? "s2c" : "c2s" }

    static func decode(_ capture: Capture) throws -> Decoded {
        #expect(Set(capture.frames.map(\.connection)) == [1], "one connection per capture")
        var readers = ["c2s": BLIPFrameReader(checksReplyNumbers: true),
                       "s2c": BLIPFrameReader(checksReplyNumbers: true)]
        var decoded = Decoded()
        for (index, frame) in capture.frames.enumerated() {
            let direction = frame.direction
            let output = try #require(try readers[direction]?.read(frame.bytes))
            var header = 0
            let number = try BLIPVarint.read(frame.bytes, at: &header)
            let type = frame.bytes[header] & 0x07
            if type <= 2 {  // ACK frames belong to no message of their own direction
                decoded.frameKeys[index] = MessageKey(direction: direction, isReply: type != 0, number: number)
            }
            if let ack = output.ackToSend { decoded.acksToSend.append((index, direction, ack)) }
            if let ack = output.receivedAck { decoded.receivedAcks.append((index, direction, ack)) }
            if let message = output.message {
                decoded.messages[direction, default: []].append(message)
                if message.kind == .request && !message.noReply {
                    readers[Self.other(direction)]?.expectReply(to: message.number)
                }
            }
        }
        return decoded
    }

    static func transcriptProperties(_ properties: BLIPProperties) -> String {
        properties.isEmpty ? "(none)" : properties.map { "\($0.key)=\($0.value)" }.joined(separator: ", ")
    }

    @Test(arguments: Capture.names)
    func everyFrameDecodesToTheTranscriptsMessages(name: String) throws {
        let capture = try Capture(name)
        #expect(!capture.frames.isEmpty)
        let decoded = try Self.decode(capture)
        for direction in ["c2s", "s2c"] {
            let expected = capture.messages.filter { $0.direction == direction }
            let actual = decoded.messages[direction] ?? []
            #expect(actual.count == expected.count, "\(name) \(direction): message count")
            for (message, listed) in zip(actual, expected) {
                let type = switch message.kind {
                case .request: "MSG"
                case .reply: "RPY"
                case .error: "ERR"
                }
                #expect(type == listed.type && message.number == listed.number,
                        "\(name) \(direction): \(type) #\(message.number) vs \(listed.type) #\(listed.number)")
                #expect(BLIPFrameFlags(message).rawValue == listed.flags & ~BLIPFrameFlags.moreComing.rawValue,
                        "\(name) \(direction) #\(message.number): flags")
                let varintLength = BLIPVarint.encode(UInt64(listed.propertiesLength)).count
                #expect(try message.properties.encoded().count - varintLength == listed.propertiesLength,
                        "\(name) \(direction) #\(message.number): properties size")
                #expect(message.body.count == listed.bodyLength, "\(name) \(direction) #\(message.number): body size")
                #expect(Self.transcriptProperties(message.properties) == listed.properties,
                        "\(name) \(direction) #\(message.number): properties")
                try Self.checkBody(message.body, listed: listed.body, context: "\(name) \(direction) #\(message.number)")
            }
            let framesPerMessage = Dictionary(grouping: decoded.frameKeys.filter { $0.value.direction == direction },
                                              by: \.value)
            for listed in expected {
                let key = MessageKey(direction: direction, isReply: listed.type != "MSG", number: listed.number)
                #expect(framesPerMessage[key]?.count == listed.frames, "\(name) \(direction) #\(listed.number): frames")
            }
        }
        let ackFrames = decoded.receivedAcks.map {
            Capture.TranscriptAck(direction: $0.direction, type: $0.ack.acknowledgesReply ? "ACKRPY" : "ACKMSG",
                                  number: $0.ack.number, byteCount: $0.ack.byteCount)
        }
        #expect(ackFrames == capture.acks)
    }

    static func checkBody(_ body: [UInt8], listed: String, context: String) throws {
        if listed == "(empty)" {
            #expect(body.isEmpty, "\(context): body")
        } else if listed.hasPrefix("JSON ") {
            let text = listed.dropFirst(5)
            guard !text.contains("...(") else { return }  // the transcript shortened it
            let expected = try JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed])
            let actual = try JSONSerialization.jsonObject(with: Data(body), options: [.fragmentsAllowed])
            let canonical = { (value: Any) throws -> Data in
                try JSONSerialization.data(withJSONObject: value, options: [.sortedKeys, .fragmentsAllowed])
            }
            #expect(try canonical(expected) == canonical(actual), "\(context): JSON body")
        } else if let match = listed.firstMatch(of: #/(\d+) bytes binary \(first bytes ([0-9a-f]+)/#) {
            #expect(body.count == Int(match.1), "\(context): binary body size")
            #expect(Capture.hex(body.prefix(match.2.count / 2)) == match.2, "\(context): binary body start")
        } else {
            Issue.record("\(context): unrecognised transcript body \(listed)")
        }
    }

    @Test func blobReplyACKMatchesLiteCoresDecision() throws {
        let capture = try Capture("push-3-blobs")
        let decoded = try Self.decode(capture)
        // The 100,000-byte getAttachment reply (c2s RPY #2) arrives in 7 frames of 16,379
        // bytes or less; the real receiver ACKed 65,508 bytes after the 4th.
        #expect(decoded.acksToSend.count == 1)
        let decision = try #require(decoded.acksToSend.first)
        #expect(decision.direction == "c2s")
        #expect(decision.ack == BLIPAck(acknowledgesReply: true, number: 2, byteCount: 65_508))
        let blobFrames = decoded.frameKeys.filter {
            $0.value == MessageKey(direction: "c2s", isReply: true, number: 2)
        }.keys.sorted()
        #expect(blobFrames.count == 7)
        #expect(decision.frame == blobFrames[3])
        let seen = try #require(decoded.receivedAcks.first)
        #expect(seen.direction == "s2c" && seen.ack == decision.ack)
        #expect(seen.frame > blobFrames[3] && seen.frame < blobFrames[6])
        #expect(capture.frames[seen.frame].bytes == decision.ack.frame)
    }

    @Test(arguments: Capture.names)
    func writerReproducesEveryFrameByteForByte(name: String) throws {
        let capture = try Capture(name)
        let decoded = try Self.decode(capture)
        // The decoded messages by key, and which replies answer a getAttachment (LiteCore streams
        // a blob from a data source, 16 KiB per read, which changes the deflate calls).
        var messages: [MessageKey: BLIPMessage] = [:]
        var streamed: Set<MessageKey> = []
        for (direction, list) in decoded.messages {
            for message in list {
                messages[MessageKey(direction: direction, isReply: message.kind != .request, number: message.number)] = message
            }
        }
        for (direction, list) in decoded.messages {
            for message in list where message.kind == .request && message.profile == "getAttachment" {
                streamed.insert(MessageKey(direction: Self.other(direction), isReply: true, number: message.number))
            }
        }
        var writers = ["c2s": BLIPFrameWriter(), "s2c": BLIPFrameWriter()]
        var outgoing: [MessageKey: BLIPOutgoingMessage] = [:]
        var identical = 0
        var mismatches: [String] = []
        for (index, frame) in capture.frames.enumerated() {
            if let ack = decoded.receivedAcks.first(where: { $0.frame == index })?.ack {
                if ack.frame == frame.bytes { identical += 1 } else { mismatches.append("frame \(index): ACK") }
                continue
            }
            let key = try #require(decoded.frameKeys[index])
            if outgoing[key] == nil {
                let message = try #require(messages[key])
                outgoing[key] = try BLIPOutgoingMessage(message, streamingBody: streamed.contains(key))
            }
            let written = try writers[key.direction]!.nextFrame(of: &outgoing[key]!)
            if written == frame.bytes {
                identical += 1
            } else {
                mismatches.append("frame \(index) (\(key.direction) \(key.isReply ? "RPY" : "MSG") #\(key.number)): "
                                  + "wrote \(written.count) bytes, captured \(frame.bytes.count)")
            }
        }
        #expect(mismatches.isEmpty, "\(name): \(mismatches.count) of \(capture.frames.count) differ: \(mismatches.prefix(5))")
        #expect(identical == capture.frames.count)
    }
}
