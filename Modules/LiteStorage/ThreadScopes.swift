import Synchronization
import LiteSupport

/// Which thread of one `DataFile` instance is writing and which threads hold read snapshots.
///
/// Engines consult it on every read to pick the view: the transaction's (the writing thread),
/// a snapshot (a thread inside `withReadSnapshot`), or the latest committed data.
package final class ThreadScopes<Snapshot: AnyObject & Sendable>: Sendable {
    private let writer = Atomic<UInt>(0)
    // Only the writing thread reads or changes `depth` (it owns the transaction), so relaxed
    // ordering is enough; an atomic only so that the compiler can check the class.
    private let depth = Atomic<Int>(0)
    private let snapshotCount = Atomic<Int>(0)
    // Invariant: a thread's entry is only added and removed by that thread.
    private let snapshots = Locked<[UInt: Snapshot]>([:])

    /// Makes an empty tracker.
    package init() {}

    /// Whether the calling thread is inside this instance's write transaction.
    package var isWriting: Bool {
        let owner = writer.load(ordering: .acquiring)
        return owner != 0 && owner == ThreadID.current
    }

    /// Whether any thread is inside a write transaction of this instance.
    package var hasWriter: Bool { writer.load(ordering: .acquiring) != 0 }

    /// Marks the calling thread as entering a (possibly nested) transaction.
    /// - Returns: `true` when this is the outermost level (the caller must begin one).
    package func enterWrite() -> Bool {
        if isWriting {
            depth.wrappingAdd(1, ordering: .relaxed)
            return false
        }
        writer.store(ThreadID.current, ordering: .releasing)
        depth.store(1, ordering: .relaxed)
        return true
    }

    /// Marks the calling thread as leaving one level.
    /// - Returns: `true` when the outermost level ended (the caller commits or aborts).
    package func leaveWrite() -> Bool {
        if depth.wrappingSubtract(1, ordering: .relaxed).newValue == 0 {
            writer.store(0, ordering: .releasing)
            return true
        }
        return false
    }

    /// The calling thread's read snapshot, if it holds one.
    package var currentSnapshot: Snapshot? {
        guard snapshotCount.load(ordering: .acquiring) > 0 else { return nil }
        let me = ThreadID.current
        return snapshots.withLock { $0[me] }
    }

    /// Binds `snapshot` to the calling thread. - Returns: `false` when it already has one.
    package func bind(_ snapshot: Snapshot) -> Bool {
        let me = ThreadID.current
        let added = snapshots.withLock { table -> Bool in
            if table[me] != nil { return false }
            table[me] = snapshot
            return true
        }
        if added { snapshotCount.add(1, ordering: .releasing) }
        return added
    }

    /// Unbinds the calling thread's snapshot.
    package func unbind() {
        let me = ThreadID.current
        let removed = snapshots.withLock { $0.removeValue(forKey: me) } != nil
        if removed { snapshotCount.subtract(1, ordering: .releasing) }
    }
}
