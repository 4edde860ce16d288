/// Why a BLIP operation failed: the peer's error reply, a peer that broke the protocol, a message
/// over the size limit, or a connection that closed.
package enum BLIPError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The peer answered with an ERR reply: `Error-Domain` (default "BLIP"), `Error-Code` and the
    /// body as the message.
    case remote(domain: String, code: Int, message: String)
    /// The peer sent bytes that are not valid BLIP: a bad frame header, varint, checksum,
    /// properties block or deflate data, or a reply to a request that was never sent. The
    /// connection closes (code 1002) when this happens.
    case protocolViolation(String)
    /// An incoming message grew past the receiver's limit (bytes, uncompressed). The
    /// connection closes with code 1009.
    case messageTooLarge(limit: Int)
    /// The peer broke one of the connection's resource limits (``BLIPLimits``): too many
    /// incoming messages under way at once, or too many of their bytes held. The connection
    /// closes with code 1008 (policy violation).
    case limitExceeded(String)
    /// A message this side tried to send cannot be encoded (a NUL inside a property, properties
    /// over 100 KiB). Nothing was sent.
    case invalidMessage(String)
    /// The connection closed (or its transport failed) before the operation finished; `code` is
    /// the WebSocket close code when one is known.
    case closed(code: UInt16?, reason: String)

    /// What happened, for a person.
    package var description: String {
        switch self {
        case let .remote(domain, code, message):
            let text = message.isEmpty ? "" : ": \(message)"
            return "the peer answered with error \(domain) \(code)\(text)"
        case let .protocolViolation(detail):
            return "the peer broke the BLIP protocol: \(detail); the connection was closed"
        case let .messageTooLarge(limit):
            return "an incoming BLIP message is larger than the \(limit)-byte limit; raise maxMessageSize "
                + "if such messages are expected"
        case let .limitExceeded(detail):
            return "the peer went over this side's limit: \(detail); the connection was closed"
        case let .invalidMessage(detail):
            return "cannot send BLIP message: \(detail)"
        case let .closed(code, reason):
            let codeText = code.map { " (code \($0))" } ?? ""
            let reasonText = reason.isEmpty ? "" : ": \(reason)"
            return "the BLIP connection is closed\(codeText)\(reasonText)"
        }
    }
}

extension BLIPError {
    /// The WebSocket close code a connection ends with when this error is the peer's fault:
    /// 1009 (message too big) past the size limit, 1008 (policy violation) past another limit,
    /// 1002 (protocol error) for anything else.
    package var closeCode: UInt16 {
        switch self {
        case .messageTooLarge: 1009
        case .limitExceeded: 1008
        default: 1002
        }
    }
}
