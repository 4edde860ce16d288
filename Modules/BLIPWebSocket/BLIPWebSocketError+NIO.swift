import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import NIOWebSocket

extension BLIPWebSocketError {
    /// Classifies an error from the NIO stack met while connecting (TCP, TLS or the upgrade).
    init(connecting error: any Error) {
        switch error {
        case let error as BLIPWebSocketError:
            self = error
        case ChannelError.connectTimeout:
            self = .timeout
        case let error as NIOSSLError:
            self = Self.tls(error)
        case let error as BoringSSLError:
            self = .tlsFailure(String(describing: error))
        case let error as NIOSSLExtraError:
            self = .untrustedCertificate(String(describing: error))
        case let error as NIOConnectionError:
            self = .connectionFailed(Self.describe(error))
        case let error as IOError:
            self = .connectionFailed(String(describing: error))
        case is NIOHTTPClientUpgradeError:
            self = .protocolError("invalid WebSocket upgrade response (\(error))")
        case is HTTPParserError:
            self = .protocolError("invalid HTTP response (\(error))")
        case ChannelError.inappropriateOperationForState, ChannelError.eof, ChannelError.ioOnClosedChannel,
             ChannelError.alreadyClosed:
            self = .connectionFailed("the server closed the connection during the handshake")
        default:
            self = .connectionFailed(String(describing: error))
        }
    }

    /// Classifies an error that ended an open WebSocket.
    init(transport error: any Error) {
        switch error {
        case let error as BLIPWebSocketError:
            self = error
        case is NIOWebSocketError:
            self = .protocolError(String(describing: error))
        case ChannelError.ioOnClosedChannel, ChannelError.alreadyClosed, ChannelError.outputClosed:
            self = .notConnected
        default:
            self = .connectionLost
        }
    }

    private static func tls(_ error: NIOSSLError) -> BLIPWebSocketError {
        let detail = String(describing: error)
        // BoringSSL's reason for a chain that does not lead to a trusted root (or is expired).
        if detail.contains("CERTIFICATE_VERIFY_FAILED") { return .untrustedCertificate(detail) }
        return .tlsFailure(detail)
    }

    private static func describe(_ error: NIOConnectionError) -> String {
        if error.dnsAError != nil || error.dnsAAAAError != nil,
           error.connectionErrors.isEmpty {
            return "host \(error.host) not found"
        }
        if let first = error.connectionErrors.first {
            return "\(error.host):\(error.port): \(first.error)"
        }
        return "\(error.host):\(error.port): \(error)"
    }
}
