import BLIP
import LiteSupport

/// An in-memory transport end that asks `fault` about every frame it is about to send and, when
/// told to, drops the connection instead (as a network failure would: the peer sees an abnormal
/// close and the frame is never delivered). For tests that need a fault at an exact point, e.g.
/// after the server saved a revision and before the client saw the reply.
final class FaultInjectingTransport: BLIPTransport {
    private let inner: InMemoryBLIPTransport
    private let fault: @Sendable (_ frame: [UInt8]) -> Bool
    private let dropped = Locked(false)

    init(_ inner: InMemoryBLIPTransport, dropWhen fault: @escaping @Sendable (_ frame: [UInt8]) -> Bool) {
        self.inner = inner
        self.fault = fault
    }

    var incoming: AsyncThrowingStream<[UInt8], any Error> { inner.incoming }

    /// Whether the fault fired.
    var didDrop: Bool { dropped.withLock { $0 } }

    func send(_ frame: [UInt8]) async throws {
        if !didDrop, fault(frame) {
            dropped.withLock { $0 = true }
            await inner.close(code: 1006, reason: "dropped by the test")
            throw BLIPError.closed(code: 1006, reason: "dropped by the test")
        }
        try await inner.send(frame)
    }

    func close(code: UInt16, reason: String) async {
        await inner.close(code: code, reason: reason)
    }

    /// The type bits of a frame (MSG 0, RPY 1, ERR 2, ACKs 4/5): the flag byte after the
    /// message number's varint.
    static func frameType(_ frame: [UInt8]) -> UInt8? {
        var index = 0
        while index < frame.count, frame[index] & 0x80 != 0 { index += 1 }
        index += 1
        guard index < frame.count else { return nil }
        return frame[index] & BLIPFrameFlags.typeMask
    }
}
