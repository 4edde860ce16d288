import Foundation

/// Credentials a replicator presents to the server.
public protocol Authenticator: Sendable {
    /// The HTTP headers that carry the credentials on the WebSocket upgrade request.
    func httpHeaders() -> [String: String]
}

/// HTTP Basic authentication with a user name and password (sent only to the configured
/// server, on the connection's upgrade request).
public struct BasicAuthenticator: Authenticator {
    /// The user name.
    public let username: String
    /// The password.
    public let password: String

    /// Creates the authenticator.
    public init(username: String, password: String) {
        self.username = username
        self.password = password
    }

    /// `Authorization: Basic <base64(user:password)>`.
    public func httpHeaders() -> [String: String] {
        let token = Array("\(username):\(password)".utf8)
        return ["Authorization": "Basic " + Data(token).base64EncodedString()]
    }
}

/// A Sync Gateway session: its session ID sent as a cookie (`SyncGatewaySession` unless
/// another name is given).
public struct SessionAuthenticator: Authenticator {
    /// The session ID Sync Gateway issued.
    public let sessionID: String
    /// The cookie's name.
    public let cookieName: String

    /// Creates the authenticator.
    public init(sessionID: String, cookieName: String? = nil) {
        self.sessionID = sessionID
        self.cookieName = cookieName ?? "SyncGatewaySession"
    }

    /// `Cookie: <name>=<session ID>`.
    public func httpHeaders() -> [String: String] {
        ["Cookie": "\(cookieName)=\(sessionID)"]
    }
}
