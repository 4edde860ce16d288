import NIOCore
import NIOHTTP1

/// Reads the head of a non-101 response to the client's upgrade request, then hangs up: the
/// refusal's status and headers are all the client needs (the body is an error page).
final class UpgradeRefusalReader: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPClientResponsePart

    private var promise: EventLoopPromise<UpgradeRefusal>?

    init(promise: EventLoopPromise<UpgradeRefusal>) {
        self.promise = promise
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard case .head(let head) = unwrapInboundIn(data), let promise else { return }
        self.promise = nil
        var headers = HTTPHeaderFields()
        for (name, value) in head.headers { headers.add(name: name, value: value) }
        promise.succeed(UpgradeRefusal(status: Int(head.status.code), reason: head.status.reasonPhrase, headers: headers))
        context.close(promise: nil)
    }

    func channelInactive(context: ChannelHandlerContext) {
        promise?.fail(BLIPWebSocketError.connectionFailed("the server closed the connection during the handshake"))
        promise = nil
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        promise?.fail(BLIPWebSocketError(connecting: error))
        promise = nil
        context.close(promise: nil)
    }
}
