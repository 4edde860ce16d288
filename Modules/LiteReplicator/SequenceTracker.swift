/// Tracks items that complete out of order and tells the latest one every item up to which
/// is complete: what a checkpoint may safely record.
package struct SequenceTracker<Sequence: Sendable>: Sendable {
    private var pending: [(sequence: Sequence, done: Bool)] = []
    private var head = 0
    /// The latest sequence all of whose predecessors are complete (nil: none yet).
    package private(set) var safeSequence: Sequence?

    package init(start: Sequence? = nil) {
        safeSequence = start
    }

    /// Adds an item in arrival order; `done` for one that needs no work.
    package mutating func add(_ sequence: Sequence, done: Bool = false) {
        pending.append((sequence, done))
        advance()
    }

    /// Marks the first pending item matching `matches` complete.
    package mutating func complete(where matches: (Sequence) -> Bool) {
        if let index = pending[head...].firstIndex(where: { !$0.done && matches($0.sequence) }) {
            pending[index].done = true
            advance()
        }
    }

    /// Whether every added item is complete.
    package var isIdle: Bool { head == pending.count }

    /// How many added items are not complete.
    package var pendingCount: Int { pending[head...].filter { !$0.done }.count }

    private mutating func advance() {
        while head < pending.count, pending[head].done {
            safeSequence = pending[head].sequence
            head += 1
        }
        if head > 1024 {
            pending.removeFirst(head)
            head = 0
        }
    }
}
