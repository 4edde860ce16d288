import LiteSupport

/// One end of an in-memory BLIP channel: what one end sends, the other receives, in order. For
/// local (database-to-database) replication and tests.
///
/// ```swift
/// let (a, b) = InMemoryBLIPTransport.pair()
/// let client = BLIPConnection(transport: a), server = BLIPConnection(transport: b)
/// ```
///
/// Closing one end finishes both ends' `incoming` (the peer's throws `BLIPError.closed` unless
/// the code is 1000); sending on a closed pair throws `BLIPError.closed`. Buffers are unbounded.
package final class InMemoryBLIPTransport: BLIPTransport {
    private typealias Continuation = AsyncThrowingStream<[UInt8], any Error>.Continuation

    package let incoming: AsyncThrowingStream<[UInt8], any Error>
    private let ownInput: Continuation
    private let peerInput: Continuation
    /// The close that ended this channel (either end's), once there is one.
    private let closure: Locked<BLIPError?>
    private let peerClosure: Locked<BLIPError?>

    private init(incoming: AsyncThrowingStream<[UInt8], any Error>, ownInput: Continuation,
                 peerInput: Continuation, closure: Locked<BLIPError?>, peerClosure: Locked<BLIPError?>) {
        self.incoming = incoming
        self.ownInput = ownInput
        self.peerInput = peerInput
        self.closure = closure
        self.peerClosure = peerClosure
    }

    /// Two connected ends.
    package static func pair() -> (InMemoryBLIPTransport, InMemoryBLIPTransport) {
        let (first, firstInput) = AsyncThrowingStream<[UInt8], any Error>.makeStream()
        let (second, secondInput) = AsyncThrowingStream<[UInt8], any Error>.makeStream()
        let firstClosure = Locked<BLIPError?>(nil)
        let secondClosure = Locked<BLIPError?>(nil)
        return (
            InMemoryBLIPTransport(incoming: first, ownInput: firstInput, peerInput: secondInput,
                                  closure: firstClosure, peerClosure: secondClosure),
            InMemoryBLIPTransport(incoming: second, ownInput: secondInput, peerInput: firstInput,
                                  closure: secondClosure, peerClosure: firstClosure)
        )
    }

    package func send(_ frame: [UInt8]) async throws {
        if let closed = closure.withLock({ $0 }) { throw closed }
        if case .terminated = peerInput.yield(frame) {
            throw peerClosure.withLock { $0 } ?? BLIPError.closed(code: nil, reason: "the peer closed the channel")
        }
    }

    package func close(code: UInt16, reason: String) async {
        let error = BLIPError.closed(code: code, reason: reason)
        let first = closure.withLock { closed in
            guard closed == nil else { return false }
            closed = error
            return true
        }
        guard first else { return }
        peerClosure.withLock { if $0 == nil { $0 = error } }
        if code == 1000 { peerInput.finish() } else { peerInput.finish(throwing: error) }
        ownInput.finish()
    }
}
