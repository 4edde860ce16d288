/// Tracks items that complete out of order and tells the latest one every item up to which
/// is complete: what a checkpoint may safely record.
///
/// An item can also be *held*: finished for now without success (a revision whose save failed
/// on a transient error). It no longer counts as pending, so a one-shot pass can end, but the
/// safe sequence never moves past it, so the next replication asks for it again.
package struct SequenceTracker<Sequence: Sendable>: Sendable {
    private enum Mark: Sendable { case pending, done, held }

    private var items: [(sequence: Sequence, mark: Mark)] = []
    private var head = 0
    private var pending = 0
    /// The latest sequence all of whose predecessors are complete (nil: none yet).
    package private(set) var safeSequence: Sequence?

    package init(start: Sequence? = nil) {
        safeSequence = start
    }

    /// Adds an item in arrival order; `done` for one that needs no work.
    package mutating func add(_ sequence: Sequence, done: Bool = false) {
        items.append((sequence, done ? .done : .pending))
        if !done { pending += 1 }
        advance()
    }

    /// Marks the first pending item matching `matches` complete.
    package mutating func complete(where matches: (Sequence) -> Bool) {
        mark(.done, where: matches)
    }

    /// Marks the first pending item matching `matches` held: finished without success, so the
    /// safe sequence stays before it for the rest of this tracker's life.
    package mutating func hold(where matches: (Sequence) -> Bool) {
        mark(.held, where: matches)
    }

    private mutating func mark(_ mark: Mark, where matches: (Sequence) -> Bool) {
        if let index = items[head...].firstIndex(where: { $0.mark == .pending && matches($0.sequence) }) {
            items[index].mark = mark
            pending -= 1
            advance()
        }
    }

    /// Whether every added item is complete or held.
    package var isIdle: Bool { pending == 0 }

    /// How many added items are neither complete nor held.
    package var pendingCount: Int { pending }

    private mutating func advance() {
        while head < items.count, items[head].mark == .done {
            safeSequence = items[head].sequence
            head += 1
        }
        if head > 1024 {
            items.removeFirst(head)
            head = 0
        }
    }
}
