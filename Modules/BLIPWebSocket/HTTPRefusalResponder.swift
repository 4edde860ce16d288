import NIOCore
import NIOHTTP1

/// Answers a request the server does not upgrade with its refusal (401, 403, 404, 400, …) and
/// closes the connection.
final class HTTPRefusalResponder: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    /// The verdict the upgrader already reached, if it saw the request.
    private var verdict: UpgradePolicy.Verdict?
    private let policy: UpgradePolicy

    init(verdict: UpgradePolicy.Verdict?, policy: UpgradePolicy) {
        self.verdict = verdict
        self.policy = policy
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            if verdict == nil { verdict = policy.verdict(for: head, isUpgrade: false) }
        case .body:
            break
        case .end:
            respond(context: context)
        }
    }

    private func respond(context: ChannelHandlerContext) {
        let (status, extraHeaders, message): (HTTPResponseStatus, [(String, String)], String)
        switch verdict {
        case .refuse(let refusedStatus, let headers, let text):
            (status, extraHeaders, message) = (refusedStatus, headers, text)
        case .accept, nil:
            (status, extraHeaders, message) = (.badRequest, [], "expected a WebSocket upgrade request")
        }
        let body = context.channel.allocator.buffer(string: message + "\n")
        var headers = HTTPHeaders(extraHeaders)
        headers.add(name: "Content-Type", value: "text/plain; charset=utf-8")
        headers.add(name: "Content-Length", value: String(body.readableBytes))
        headers.add(name: "Connection", value: "close")
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: status, headers: headers))),
                      promise: nil)
        context.write(wrapOutboundOut(.body(.byteBuffer(body))), promise: nil)
        let channel = context.channel
        context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in channel.close(promise: nil) }
    }
}
