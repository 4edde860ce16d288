import LiteSupport

/// Counts a connection's requests delivered and not yet taken by the consumer, and holds the
/// reader while there are ``limit`` of them (``BLIPLimits/maxQueuedRequests``).
final class RequestGate: Sendable {
    private struct State {
        var queued = 0
        var closed = false
        var waiter: CheckedContinuation<Void, Never>?
    }

    private let limit: Int
    private let state = Locked(State())

    init(limit: Int) {
        self.limit = max(limit, 1)
    }

    /// Counts a delivered request; true when the reader must wait for room.
    func added() -> Bool {
        state.withLock { state in
            state.queued += 1
            return state.queued >= limit && !state.closed
        }
    }

    /// Returns once the consumer has taken a request (or the connection closed).
    func waitForRoom() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let now = state.withLock { state -> Bool in
                if state.closed || state.queued < limit { return true }
                state.waiter = continuation
                return false
            }
            if now { continuation.resume() }
        }
    }

    /// Counts a request the consumer took.
    func taken() {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            state.queued -= 1
            guard state.queued < limit else { return nil }
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume()
    }

    /// The connection closed: the reader waits no more.
    func close() {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            state.closed = true
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume()
    }
}
