import LiteSupport

/// The pusher's revisions sent and not yet answered: their replies are handled on the
/// connection's reader (no task per revision), which reports each one here, and the pusher
/// waits here for room, or for all of them, or learns the error that ends the push.
final class RevisionsInFlight: Sendable {
    private struct State {
        var count = 0
        /// The first error that ends the push (the connection closed).
        var failure: (any Error)?
        /// The pusher, waiting until at most `limit` are in flight.
        var waiter: (limit: Int, continuation: CheckedContinuation<Void, any Error>)?
    }

    private let state = Locked(State())

    /// Counts a revision about to be sent.
    func started() {
        state.withLock { $0.count += 1 }
    }

    /// A revision's reply was handled; `failure` is an error that ends the push.
    func finished(failure: (any Error)? = nil) {
        let waiter = state.withLock { state -> CheckedContinuation<Void, any Error>? in
            state.count -= 1
            if let failure, state.failure == nil { state.failure = failure }
            guard let waiter = state.waiter, state.count <= waiter.limit || state.failure != nil else { return nil }
            state.waiter = nil
            return waiter.continuation
        }
        waiter?.resume()
    }

    /// Returns at once while fewer than `limit` are in flight; otherwise waits until half of
    /// them are answered, so the pusher wakes once per half window rather than once per reply.
    ///
    /// - Throws: the error that ended the push, or `CancellationError`.
    func waitForRoom(limit: Int) async throws {
        let full = try state.withLock { state -> Bool in
            if let failure = state.failure { throw failure }
            return state.count >= limit
        }
        if full { try await wait(untilAtMost: limit / 2) }
    }

    /// Waits until at most `limit` revisions are in flight (0: all answered).
    ///
    /// - Throws: the error that ended the push, or `CancellationError`.
    func wait(untilAtMost limit: Int) async throws {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let ready = state.withLock { state -> Result<Void, any Error>? in
                    if let failure = state.failure { return .failure(failure) }
                    // Checked under the lock the cancellation handler takes too.
                    if Task.isCancelled { return .failure(CancellationError()) }
                    if state.count <= limit { return .success(()) }
                    state.waiter = (limit, continuation)
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
