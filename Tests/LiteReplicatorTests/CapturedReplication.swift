import BLIP
import Foundation
import TestSupport

/// A real Couchbase Lite 2.8 replication from `blip/captures-2.8`, decoded into whole BLIP
/// messages per connection, in the order their last frames crossed the wire.
struct CapturedReplication {
    struct Message {
        var connection: Int
        /// true: client → server.
        var fromClient: Bool
        var message: BLIPMessage
    }

    let name: String
    let messages: [Message]

    init(_ name: String) throws {
        self.name = name
        let text = String(decoding: try Fixtures.data("blip/captures-2.8/\(name).jsonl"), as: UTF8.self)
        var readers: [String: BLIPFrameReader] = [:]
        var messages: [Message] = []
        for line in text.split(separator: "\n") {
            guard let record = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                  record["rec"] as? String == "frame", record["opcode"] as? Int == 2,
                  let connection = record["conn"] as? Int, let direction = record["dir"] as? String,
                  let payload = record["payload"] as? String else { continue }
            let key = "\(connection)-\(direction)"
            var reader = readers[key] ?? BLIPFrameReader()
            let output = try reader.read(Self.bytes(hex: payload))
            readers[key] = reader
            if let message = output.message {
                messages.append(Message(connection: connection, fromClient: direction == "c2s", message: message))
            }
        }
        self.messages = messages
    }

    /// The connections, in order.
    var connections: [Int] { Array(Set(messages.map(\.connection))).sorted() }

    /// The reply to request `number` sent by the client (`fromClient`) or the server.
    func reply(to number: UInt64, requestFromClient: Bool, connection: Int) -> BLIPMessage? {
        messages.first {
            $0.connection == connection && $0.fromClient != requestFromClient && $0.message.kind != .request
                && $0.message.number == number
        }?.message
    }

    static func bytes(hex: String) -> [UInt8] {
        var bytes: [UInt8] = []
        var high: UInt8?
        for character in hex.utf8 {
            let nibble: UInt8 = switch character {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): character - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): character - UInt8(ascii: "a") + 10
            default: character - UInt8(ascii: "A") + 10
            }
            if let first = high { bytes.append(first << 4 | nibble); high = nil } else { high = nibble }
        }
        return bytes
    }
}
