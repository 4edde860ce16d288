import Foundation
import NIOCore
import NIOPosix
import TestSupport

/// A raw TCP server on 127.0.0.1 that reads one HTTP request head per connection and answers
/// with whatever bytes a script returns: a peer that misbehaves in ways ``BLIPWebSocketServer``
/// never would (101 without the subprotocol, hanging up, never answering).
final class ScriptedHTTPServer: Sendable {
    /// What to do with a request.
    enum Action: Sendable {
        /// Write these bytes, then close the connection or keep it open.
        case reply(String, thenClose: Bool)
        /// Write these bytes (an HTTP head followed by WebSocket frames), then close or keep open.
        case raw([UInt8], thenClose: Bool)
        /// Close the connection without a word.
        case hangUp
        /// Keep the connection open and never answer.
        case ignore
    }

    /// Every request head received, as text.
    let requests: AsyncStream<String>
    let port: Int
    private let channel: any Channel

    init(_ script: @escaping @Sendable (String) -> Action) async throws {
        let (requests, continuation) = AsyncStream.makeStream(of: String.self)
        self.requests = requests
        channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(
                        ScriptHandler(script: script, requests: continuation))
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        port = channel.localAddress?.port ?? 0
    }

    func url(_ path: String = "/db/_blipsync") -> URL? {
        URL(string: "ws://127.0.0.1:\(port)\(path)")
    }

    func stop() async {
        try? await channel.close()
    }

    /// The `Sec-WebSocket-Accept` value for a request's `Sec-WebSocket-Key` (RFC 6455 §4.2.2).
    static func acceptValue(forRequest request: String) -> String {
        let key = request.split(separator: "\r\n").first { $0.lowercased().hasPrefix("sec-websocket-key:") }
            .map { $0.dropFirst("sec-websocket-key:".count).trimmingCharacters(in: .whitespaces) } ?? ""
        return Data(ReferenceSHA1.digest(Array((key + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11").utf8))).base64EncodedString()
    }

    private final class ScriptHandler: ChannelInboundHandler {
        typealias InboundIn = ByteBuffer
        typealias OutboundOut = ByteBuffer

        let script: @Sendable (String) -> Action
        let requests: AsyncStream<String>.Continuation
        var received = ""
        var answered = false

        init(script: @escaping @Sendable (String) -> Action, requests: AsyncStream<String>.Continuation) {
            self.script = script
            self.requests = requests
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            guard !answered else { return }
            received += String(buffer: unwrapInboundIn(data))
            guard let end = received.range(of: "\r\n\r\n") else { return }
            answered = true
            let head = String(received[..<end.lowerBound])
            requests.yield(head)
            switch script(head) {
            case .reply(let text, let thenClose):
                write(Array(text.utf8), thenClose: thenClose, context: context)
            case .raw(let bytes, let thenClose):
                write(bytes, thenClose: thenClose, context: context)
            case .hangUp:
                context.close(promise: nil)
            case .ignore:
                break
            }
        }

        private func write(_ bytes: [UInt8], thenClose: Bool, context: ChannelHandlerContext) {
            let channel = context.channel
            context.writeAndFlush(wrapOutboundOut(context.channel.allocator.buffer(bytes: bytes)))
                .whenComplete { _ in if thenClose { channel.close(promise: nil) } }
        }
    }
}
