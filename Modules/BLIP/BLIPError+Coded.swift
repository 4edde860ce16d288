import LiteSupport

extension BLIPError: CodedError {
    /// The 2.x number: a peer's error reply is a remote error; a closed connection carries its
    /// WebSocket close code (11000 + code − 1000); a peer that broke the protocol or a limit is
    /// a WebSocket protocol or policy error; a message this side cannot send is its parameter.
    package var errorCode: CBLErrorCode {
        switch self {
        case .remote: .remoteError
        case .closed(let code, _): CBLErrorCode(rawValue: CBLErrorCode.webSocketBase.rawValue + Int(code ?? 1006) - 1000)
        case .protocolViolation, .messageTooLarge, .limitExceeded:
            CBLErrorCode(rawValue: CBLErrorCode.webSocketBase.rawValue + Int(closeCode) - 1000)
        case .invalidMessage: .invalidParameter
        }
    }

    /// What happened, for a person.
    package var message: String { description }
    /// A BLIP error has no cause.
    package var cause: (any Error)? { nil }
}
