import LiteDatabase
import LiteSupport

/// Wakes a waiting task when the database commits a change (continuous replication).
final class DatabaseChangeSignal: Sendable {
    private let core: DatabaseCore
    private struct State {
        var token: UInt64?
        var pending = false
        var waiter: CheckedContinuation<Void, Never>?
        var stopped = false
    }
    private let state = Locked(State())

    init(core: DatabaseCore) {
        self.core = core
        let token = core.addChangeObserver { [state] _ in
            let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
                if let waiter = state.waiter {
                    state.waiter = nil
                    return waiter
                }
                state.pending = true
                return nil
            }
            waiter?.resume()
        }
        state.withLock { $0.token = token }
    }

    /// Returns after the next change (at once if one happened since the last call), or when
    /// the task is cancelled.
    func wait() async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let resumeNow = state.withLock { state -> Bool in
                    if state.pending || state.stopped || Task.isCancelled {
                        state.pending = false
                        return true
                    }
                    state.waiter = continuation
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            wake()
        }
    }

    private func wake() {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume()
    }

    func stop() {
        let token = state.withLock { state -> UInt64? in
            state.stopped = true
            return state.token
        }
        if let token { core.removeChangeObserver(token) }
        wake()
    }
}
