import Foundation
import NIOHTTP1

/// The server's rules for an upgrade request, in the order a client meets them: capacity
/// (503), credentials (401/403), path and database (404), method (405), then the WebSocket
/// subprotocol (400). Credentials come before the path so that a client without them learns
/// nothing, not even which database names exist.
struct UpgradePolicy: Sendable {
    /// What to do with one request.
    enum Verdict: Sendable {
        case accept(database: String, subprotocol: String)
        case refuse(HTTPResponseStatus, headers: [(String, String)], message: String)
    }

    let options: BLIPWebSocketServerOptions
    let openConnections: @Sendable () -> Int

    /// Judges a request head. `isUpgrade` is false for a request the WebSocket upgrader did not
    /// take (no `Upgrade: websocket`, or a malformed one): those are refused even if acceptable.
    func verdict(for head: HTTPRequestHead, isUpgrade: Bool) -> Verdict {
        var headers = HTTPHeaderFields()
        for (name, value) in head.headers { headers.add(name: name, value: value) }
        if let limit = options.maxConnections, openConnections() > limit {
            return .refuse(.serviceUnavailable, headers: [], message: "too many connections")
        }
        switch options.authenticate?(headers) ?? .allow {
        case .allow:
            break
        case .challenge(let realm):
            let escaped = realm.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
            return .refuse(.unauthorized, headers: [("WWW-Authenticate", "Basic realm=\"\(escaped)\"")],
                           message: "authentication required")
        case .forbid:
            return .refuse(.forbidden, headers: [], message: "not allowed")
        }
        guard let database = Self.databaseName(inTarget: head.uri),
              options.databaseExists?(database) ?? true else {
            return .refuse(.notFound, headers: [], message: "no such database")
        }
        guard head.method == .GET else {
            return .refuse(.methodNotAllowed, headers: [("Allow", "GET")], message: "use GET to open a WebSocket")
        }
        guard isUpgrade else {
            return .refuse(.badRequest, headers: [], message: "expected a WebSocket upgrade request")
        }
        guard let subprotocol = headers.tokens(for: "Sec-WebSocket-Protocol").first(where: options.subprotocols.contains)
        else {
            let accepted = options.subprotocols.joined(separator: ", ")
            return .refuse(.badRequest, headers: [], message: "Sec-WebSocket-Protocol must offer \(accepted)")
        }
        return .accept(database: database, subprotocol: subprotocol)
    }

    /// `<db>` from a request target `/<db>/_blipsync` (a query string is allowed), or nil.
    static func databaseName(inTarget target: String) -> String? {
        let path = target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        let parts = path.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].isEmpty, parts[2] == "_blipsync",
              let name = String(parts[1]).removingPercentEncoding, !name.isEmpty else { return nil }
        return name
    }
}
