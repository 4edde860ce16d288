import NIOCore
import NIOHTTP1

/// Rewrites the upgrade request's `Connection` header to exactly `Upgrade`, the spelling
/// LiteCore's listener requires (it compares case-sensitively; HTTP says it should not).
final class UpgradeHeaderCasing: ChannelOutboundHandler, RemovableChannelHandler, Sendable {
    typealias OutboundIn = HTTPClientRequestPart
    typealias OutboundOut = HTTPClientRequestPart

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        guard case .head(var head) = unwrapOutboundIn(data) else {
            context.write(data, promise: promise)
            return
        }
        if head.headers["Connection"].contains(where: { $0.lowercased() == "upgrade" }) {
            head.headers.replaceOrAdd(name: "Connection", value: "Upgrade")
        }
        context.write(wrapOutboundOut(.head(head)), promise: promise)
        // One request head is all it is for: after the upgrade this place carries WebSocket bytes.
        context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
    }
}
