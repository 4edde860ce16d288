import BLIP
import LiteStorage
import LiteSupport

/// An error of a replication: what the peer answered, what the network did, or what our own
/// database refused. `domain` and `code` follow Couchbase Lite 2.x: "HTTP" codes (401, 404, 409,
/// 5xx), WebSocket close codes, POSIX-style network failures, or the database's own codes.
package struct ReplicationError: Error, Sendable, CustomStringConvertible {
    /// Where the code comes from.
    package enum Domain: String, Sendable {
        /// An HTTP status (from the upgrade, or an "HTTP" error reply).
        case http = "HTTP"
        /// A BLIP error reply or a protocol violation.
        case blip = "BLIP"
        /// A WebSocket close code.
        case webSocket = "WebSocket"
        /// The network: refused, unreachable, timed out, reset.
        case network = "Network"
        /// The local database (a `DatabaseError` code).
        case database = "CouchbaseLite"
    }

    package let domain: Domain
    package let code: Int
    /// What happened, for a person.
    package let message: String
    package let underlying: (any Error)?

    package init(_ domain: Domain, _ code: Int, _ message: String, underlying: (any Error)? = nil) {
        self.domain = domain
        self.code = code
        self.message = message
        self.underlying = underlying
    }

    package var description: String {
        var text = "\(message) (\(domain.rawValue) \(code))"
        if let underlying { text += ": \(underlying)" }
        return text
    }

    /// Whether trying again later may succeed (Couchbase Lite's transient errors): network
    /// failures, HTTP 408, 429, 500, 502, 503, 504, and WebSocket closes other than policy/
    /// protocol refusals.
    package var isTransient: Bool {
        switch domain {
        // Network codes as CBLErrorNetworkBase + n: DNS, unknown host, timeout (1–3) and a
        // connection refused or lost (0) may pass; a bad URL or a TLS refusal (4–12) will not.
        case .network: return code <= 3
        case .http: return [408, 429, 500, 502, 503, 504].contains(code)
        case .webSocket: return ![1002, 1003, 1008].contains(code)
        case .blip: return code == 503
        case .database: return false
        }
    }

    /// Wraps an error from the BLIP layer.
    package init(blip error: BLIPError, context: String) {
        switch error {
        case .remote(let domain, let code, let message):
            let mapped: Domain = domain == "HTTP" ? .http : .blip
            self.init(mapped, code, "\(context): the peer answered \(domain) \(code)"
                      + (message.isEmpty ? "" : " \"\(message)\""), underlying: error)
        case .closed(let code, let reason):
            self.init(.webSocket, Int(code ?? 1006), "\(context): the connection closed"
                      + (reason.isEmpty ? "" : " (\(reason))"), underlying: error)
        default:
            self.init(.blip, 400, "\(context): \(error)", underlying: error)
        }
    }
}

extension ReplicationError {
    /// Runs `body`, turning a BLIP failure (a peer's error reply, a closed connection) into a
    /// replication error that says what was being done; other errors pass unchanged.
    package static func translatingBLIP<T>(_ context: @autoclosure () -> String,
                                          _ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch let error as BLIPError {
            throw ReplicationError(blip: error, context: context())
        }
    }

    /// The answer to a peer's request that failed with this error: an HTTP status stays one,
    /// anything else is a BLIP error.
    package var replyDomain: String { domain == .http ? "HTTP" : "BLIP" }
}

extension ReplicationError: CodedError {
    /// The 2.x number: HTTP statuses from 10000, WebSocket close codes from 11000 (11000 + code
    /// − 1000), network failures from 5000; a BLIP conflict is HTTP 409, another BLIP error a
    /// remote error; a database error keeps its number.
    package var errorCode: CBLErrorCode {
        switch domain {
        case .http: CBLErrorCode(rawValue: CBLErrorCode.httpBase.rawValue + code)
        case .webSocket: CBLErrorCode(rawValue: CBLErrorCode.webSocketBase.rawValue + code - 1000)
        case .network: CBLErrorCode(rawValue: CBLErrorCode.networkBase.rawValue + code)
        case .blip: code == 409 ? CBLErrorCode(rawValue: CBLErrorCode.httpBase.rawValue + 409) : .remoteError
        case .database: CBLErrorCode(rawValue: code)
        }
    }

    /// The cause, unless it is the BLIP error whose words the message already states (every
    /// ``init(blip:context:)`` puts the peer's answer or the close into the message).
    package var cause: (any Error)? { underlying is BLIPError ? nil : underlying }
    /// The domain and code, printed once at the end of the line.
    package var detail: String? { "\(domain.rawValue) \(code)" }
}
