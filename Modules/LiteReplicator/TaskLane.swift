import LiteSupport

/// Admits work to run as tasks, at most `limit` at once; work beyond that waits in a queue, in
/// arrival order, and is taken up by the task that ends next. A peer that sends thousands of
/// requests at once then costs a queue entry each, not a task and an open file each.
final class TaskLane: Sendable {
    typealias Work = @Sendable () async -> Void

    private struct State {
        var running = 0
        var queue: [Work] = []
        var head = 0
    }

    let limit: Int
    private let state = Locked(State())

    init(limit: Int) {
        self.limit = max(1, limit)
    }

    /// True when `work` may start now in a new task (it then counts as running); false when it
    /// was queued for a running task to take up.
    func admit(_ work: @escaping Work) -> Bool {
        state.withLock { state in
            if state.running < limit {
                state.running += 1
                return true
            }
            state.queue.append(work)
            return false
        }
    }

    /// Called by a running task when its work is done: the next queued work for it to run, or
    /// nil (it no longer counts as running).
    func next() -> Work? {
        state.withLock { state in
            guard state.head < state.queue.count else {
                state.running -= 1
                return nil
            }
            let work = state.queue[state.head]
            state.head += 1
            if state.head == state.queue.count {
                state.queue.removeAll(keepingCapacity: true)
                state.head = 0
            } else if state.head >= 1024 {
                state.queue.removeFirst(state.head)
                state.head = 0
            }
            return work
        }
    }

    /// Work running and queued.
    var counts: (running: Int, queued: Int) {
        state.withLock { ($0.running, $0.queue.count - $0.head) }
    }
}
