import Foundation
import TestSupport
@testable import BLIP

/// The BLIP captures of real Couchbase Lite 2.8 replications (`blip/captures-2.8`): their
/// WebSocket frames and the independent transcript made of them.
struct Capture {
    /// One binary WebSocket message: one BLIP frame.
    struct Frame {
        var connection: Int
        /// "c2s" or "s2c".
        var direction: String
        var bytes: [UInt8]
    }

    /// One message as the transcript lists it.
    struct TranscriptMessage: Equatable {
        var direction: String
        var type: String
        var number: UInt64
        var flags: UInt8
        var frames: Int
        var propertiesLength: Int
        var bodyLength: Int
        var properties: String
        var body: String
    }

    /// One ACK frame as the transcript lists it.
    struct TranscriptAck: Equatable {
        var direction: String
        var type: String
        var number: UInt64
        var byteCount: UInt64
    }

    static let names = ["push-50-docs", "pull-50-docs", "push-3-blobs", "pull-continuous",
                        "push-existing-and-conflict", "push-existing-and-conflict.setup"]

    let name: String
    let frames: [Frame]
    let messages: [TranscriptMessage]
    let acks: [TranscriptAck]

    init(_ name: String) throws {
        self.name = name
        let lines = try String(decoding: Fixtures.data("blip/captures-2.8/\(name).jsonl"), as: UTF8.self)
            .split(separator: "\n")
        var frames: [Frame] = []
        for line in lines {
            guard let record = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                  record["rec"] as? String == "frame", record["opcode"] as? Int == 2,
                  let connection = record["conn"] as? Int, let direction = record["dir"] as? String,
                  let payload = record["payload"] as? String
            else { continue }
            frames.append(Frame(connection: connection, direction: direction, bytes: Self.bytes(hex: payload)))
        }
        self.frames = frames

        let transcript = try String(decoding: Fixtures.data("blip/captures-2.8/\(name).transcript.txt"), as: UTF8.self)
            .split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        var messages: [TranscriptMessage] = []
        var acks: [TranscriptAck] = []
        let header = #/^\[t=\s*[0-9.]+\] (c2s|s2c) (MSG|RPY|ERR) #(\d+)/#
        let flagsLine = #/flags: 0x([0-9a-f]+) .*frames: (\d+) .*\(props (\d+), body (\d+)\)/#
        let ackLine = #/^\[t=\s*[0-9.]+\] (c2s|s2c) (ACKMSG|ACKRPY) #(\d+) .*acknowledged bytes=(\d+)/#
        for (index, line) in transcript.enumerated() {
            if let match = line.firstMatch(of: ackLine) {
                acks.append(TranscriptAck(direction: String(match.1), type: String(match.2),
                                          number: UInt64(match.3) ?? 0, byteCount: UInt64(match.4) ?? 0))
            }
            guard let match = line.firstMatch(of: header), index + 3 < transcript.count,
                  let flags = transcript[index + 1].firstMatch(of: flagsLine)
            else { continue }
            let properties = transcript[index + 2].trimmingCharacters(in: .whitespaces)
            let body = transcript[index + 3].trimmingCharacters(in: .whitespaces)
            messages.append(TranscriptMessage(
                direction: String(match.1), type: String(match.2), number: UInt64(match.3) ?? 0,
                flags: UInt8(flags.1, radix: 16) ?? 0, frames: Int(flags.2) ?? 0,
                propertiesLength: Int(flags.3) ?? 0, bodyLength: Int(flags.4) ?? 0,
                properties: String(properties.dropFirst("properties: ".count)),
                body: String(body.dropFirst("body: ".count))))
        }
        self.messages = messages
        self.acks = acks
    }

    static func bytes(hex: String) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(hex.utf8.count / 2)
        var high: UInt8?
        for character in hex.utf8 {
            let nibble: UInt8 = switch character {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): character - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): character - UInt8(ascii: "a") + 10
            default: character - UInt8(ascii: "A") + 10
            }
            if let first = high {
                bytes.append(first << 4 | nibble)
                high = nil
            } else {
                high = nibble
            }
        }
        return bytes
    }

    static func hex(_ bytes: some Sequence<UInt8>) -> String {
        bytes.map { String(format: "%02x", $0) }.joined()
    }
}
