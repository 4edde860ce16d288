import LiteSupport

/// A request the peer sent, as ``BLIPConnection/requests`` delivers it, with the means to answer.
///
/// Answer each request once (later answers are ignored); requests sent with `noReply` need none.
package struct BLIPIncomingRequest: Sendable {
    /// The request (kind `.request`, its number, properties and body).
    package let message: BLIPMessage
    private let connection: BLIPConnection
    private let answered = Locked(false)

    init(message: BLIPMessage, connection: BLIPConnection) {
        self.message = message
        self.connection = connection
    }

    /// The `Profile` property: the request type.
    package var profile: String? { message.profile }

    /// Sends a reply; returns once its last frame is handed to the transport (or the
    /// connection closed). Does nothing for a `noReply` request or one already answered.
    ///
    /// - Parameter urgent: `nil` to answer as urgently as the request was sent (LiteCore's
    ///   `MessageBuilder(inReplyTo:)`).
    package func respond(properties: BLIPProperties = [:], body: [UInt8] = [], compressed: Bool = false,
                         urgent: Bool? = nil) async {
        await answer(BLIPMessage(kind: .reply, number: message.number, urgent: urgent ?? message.urgent,
                                 compressed: compressed, properties: properties, body: body))
    }

    /// Sends a reply whose body is read from `bodySource` in 16 KiB pieces as its frames go out
    /// (a blob), so the body is never held whole; returns once the last frame is handed to the
    /// transport (or the connection closed). Frames are those of a LiteCore reply streamed
    /// from a data source.
    package func respond(properties: BLIPProperties = [:], bodySource: any BLIPBodySource, compressed: Bool = false) async {
        await answer(BLIPMessage(kind: .reply, number: message.number, urgent: message.urgent,
                                 compressed: compressed, properties: properties), bodySource: bodySource)
    }

    /// Queues a reply and returns at once, without waiting for it to be written (for a caller
    /// that must not suspend, such as a completion handler). Does nothing for a `noReply`
    /// request or one already answered.
    package func respondWithoutWaiting(properties: BLIPProperties = [:], body: [UInt8] = []) {
        guard claimAnswer() else { return }
        connection.queueReply(BLIPMessage(kind: .reply, number: message.number, urgent: message.urgent,
                                          properties: properties, body: body))
    }

    /// Queues an ERR reply (as ``respondError(domain:code:message:)``) and returns at once.
    package func respondErrorWithoutWaiting(domain: String = "BLIP", code: Int, message text: String) {
        guard claimAnswer() else { return }
        connection.queueReply(BLIPMessage(kind: .error, number: message.number, urgent: message.urgent,
                                          properties: ["Error-Domain": domain, "Error-Code": String(code)],
                                          body: Array(text.utf8)))
    }

    /// Sends an ERR reply: properties `Error-Domain` and `Error-Code`, the message as the body.
    package func respondError(domain: String = "BLIP", code: Int, message text: String) async {
        await answer(BLIPMessage(kind: .error, number: message.number, urgent: message.urgent,
                                 properties: ["Error-Domain": domain, "Error-Code": String(code)],
                                 body: Array(text.utf8)))
    }

    private func answer(_ reply: BLIPMessage, bodySource: (any BLIPBodySource)? = nil) async {
        guard claimAnswer() else { return }
        await connection.sendReply(reply, bodySource: bodySource)
    }

    /// Whether this call is the one to answer: the request wants a reply and none was given.
    private func claimAnswer() -> Bool {
        guard !message.noReply else { return false }
        return answered.withLock { done in
            defer { done = true }
            return !done
        }
    }
}
