import LiteSupport

/// The pusher's revisions sent and not yet answered: their replies are handled on the
/// connection's reader (no task per revision), which reports each one here, and the pusher
/// waits here for room, or for all of them, or learns the error that ends the push.
final class RevisionsInFlight: Sendable {
    private struct State {
        var count = 0
        /// Their bodies' bytes (queued for sending or sent).
        var bytes = 0
        /// The first error that ends the push (the connection closed).
        var failure: (any Error)?
        /// The pusher, waiting until at most `count` revisions of at most `bytes` are in flight.
        var waiter: (count: Int, bytes: Int, continuation: CheckedContinuation<Void, any Error>)?
    }

    private let state = Locked(State())

    /// Whether the pusher is waiting (tests check that a full window really waits).
    var hasWaiter: Bool { state.withLock { $0.waiter != nil } }

    /// Counts a revision about to be sent, with its body's size.
    func started(bytes: Int) {
        state.withLock { state in
            state.count += 1
            state.bytes += bytes
        }
    }

    /// A revision's reply was handled; `failure` is an error that ends the push.
    func finished(bytes: Int, failure: (any Error)? = nil) {
        let waiter = state.withLock { state -> CheckedContinuation<Void, any Error>? in
            state.count -= 1
            state.bytes -= bytes
            if let failure, state.failure == nil { state.failure = failure }
            guard let waiter = state.waiter,
                  (state.count <= waiter.count && state.bytes <= waiter.bytes) || state.failure != nil else { return nil }
            state.waiter = nil
            return waiter.continuation
        }
        waiter?.resume()
    }

    /// Returns at once while fewer than `limit` revisions and fewer than `byteLimit` bytes are
    /// in flight; otherwise waits until they are down to half of both, so the pusher wakes once
    /// per half window rather than once per reply.
    ///
    /// - Throws: the error that ended the push, or `CancellationError`.
    func waitForRoom(limit: Int, byteLimit: Int) async throws {
        let full = try state.withLock { state -> Bool in
            if let failure = state.failure { throw failure }
            return state.count >= limit || state.bytes >= byteLimit
        }
        if full { try await wait(untilAtMost: limit / 2, bytes: byteLimit / 2) }
    }

    /// Waits until at most `count` revisions of at most `bytes` are in flight (0: all answered).
    ///
    /// - Throws: the error that ended the push, or `CancellationError`.
    func wait(untilAtMost count: Int, bytes: Int = .max) async throws {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let ready = state.withLock { state -> Result<Void, any Error>? in
                    if let failure = state.failure { return .failure(failure) }
                    // Checked under the lock the cancellation handler takes too.
                    if Task.isCancelled { return .failure(CancellationError()) }
                    if state.count <= count && state.bytes <= bytes { return .success(()) }
                    state.waiter = (count, bytes, continuation)
                    return nil
                }
                if let ready { continuation.resume(with: ready) }
            }
        } onCancel: {
            let waiter = state.withLock { state in
                defer { state.waiter = nil }
                return state.waiter
            }
            waiter?.continuation.resume(throwing: CancellationError())
        }
        if let failure = state.withLock({ $0.failure }) { throw failure }
    }
}
