/// What a BLIP connection runs over: an ordered, reliable channel of whole binary messages, one
/// BLIP frame each (a WebSocket, or an in-memory pair for local replication and tests).
package protocol BLIPTransport: Sendable {
    /// Sends one frame. Throws once the transport is closed or failed.
    func send(_ frame: [UInt8]) async throws
    /// Sends several frames in order as one write (a WebSocket writes them all, then flushes
    /// once); returns once all are handed to the channel. Throws once the transport is closed
    /// or failed. The default sends them one by one.
    func send(frames: [[UInt8]]) async throws
    /// The frames the peer sent, in order; finishes when the peer closes normally, throws when
    /// the transport fails or the peer closes with an error code.
    var incoming: AsyncThrowingStream<[UInt8], any Error> { get }
    /// Closes the channel (WebSocket close code and reason); idempotent.
    func close(code: UInt16, reason: String) async
}

extension BLIPTransport {
    package func send(frames: [[UInt8]]) async throws {
        for frame in frames { try await send(frame) }
    }
}
