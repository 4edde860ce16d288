/// What a BLIP connection runs over: an ordered, reliable channel of whole binary messages, one
/// BLIP frame each (a WebSocket, or an in-memory pair for local replication and tests).
package protocol BLIPTransport: Sendable {
    /// Sends one frame. Throws once the transport is closed or failed.
    func send(_ frame: [UInt8]) async throws
    /// The frames the peer sent, in order; finishes when the peer closes normally, throws when
    /// the transport fails or the peer closes with an error code.
    var incoming: AsyncThrowingStream<[UInt8], any Error> { get }
    /// Closes the channel (WebSocket close code and reason); idempotent.
    func close(code: UInt16, reason: String) async
}
