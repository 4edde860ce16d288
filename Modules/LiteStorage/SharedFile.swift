import FoundationEssentials
import LiteSupport
import Synchronization

/// What every `DataFile` instance open on the same path in this process shares: the write lock
/// (so a second instance's writer waits instead of failing) and the commit observers.
///
/// Engines get one with ``retain(path:)`` when a file opens and give it back with
/// ``release()`` when it closes.
package final class SharedFile: Sendable {
    /// The writing thread (0: none); writers wait on it in turn.
    private let owner = ThreadCondition<UInt>(0)

    private struct Observers {
        var next: UInt64 = 1
        var byID: [UInt64: @Sendable (CommitEvent) -> Void] = [:]
    }
    private let observers = Locked(Observers())

    /// Bumped by an engine whenever a commit changed the schema (a table, column or index), so
    /// other instances on the path know to drop cached schema facts.
    package let schemaGeneration = Atomic<UInt64>(0)

    /// The canonical path all instances share.
    package let path: String
    /// Engine-specific state shared by all instances (e.g. one RocksDB handle per folder),
    /// guarded by ``withEngineState(_:)``.
    private let engineState = Locked<(any AnyObject & Sendable)?>(nil)
    // Changed only with `registry` locked; atomic only so that the compiler can check the class.
    private let references = Atomic<Int>(0)

    private init(path: String) { self.path = path }

    private static let registry = Locked<[String: SharedFile]>([:])

    /// The shared state for `path` (canonicalised), created on first use.
    package static func retain(path: String) -> SharedFile {
        let key = canonicalPath(path)
        return registry.withLock { files in
            let file = files[key] ?? SharedFile(path: key)
            files[key] = file
            file.references.wrappingAdd(1, ordering: .relaxed)
            return file
        }
    }

    /// Gives back a reference taken by ``retain(path:)``; the last one removes the entry.
    package func release() {
        Self.registry.withLock { files in
            if references.wrappingSubtract(1, ordering: .relaxed).newValue <= 0 { files[path] = nil }
        }
    }

    /// Whether a `DataFile` in this process has `path` open (an in-place conversion must not
    /// replace files under it).
    package static func isOpen(path: String) -> Bool {
        let key = canonicalPath(path)
        return registry.withLock { $0[key] != nil }
    }

    /// Resolves symbolic links and `..` so that two spellings of one file share state.
    package static func canonicalPath(_ path: String) -> String {
        let url = URL(fileURLWithPath: path).standardizedFileURL
        let resolved = url.resolvingSymlinksInPath().path
        if resolved != url.path { return resolved }
        let parent = url.deletingLastPathComponent().resolvingSymlinksInPath()
        return parent.appendingPathComponent(url.lastPathComponent).path
    }

    // MARK: Write lock

    /// Waits until no other thread writes this path, then makes the calling thread the writer.
    ///
    /// - Throws: `StorageError.busy` when the calling thread already writes this path through
    ///   another `DataFile` instance (waiting would deadlock).
    package func lockWriter() throws {
        let me = ThreadID.current
        // Waiting while this thread is the owner would never end: that case throws at once.
        try owner.withLock(when: { $0 == 0 || $0 == me }) { owner in
            if owner == me {
                throw StorageError(.busy, "data file \"\(path)\": this thread is already writing it "
                    + "through another open instance; write through that instance instead")
            }
            owner = me
        }
    }

    /// Ends the calling thread's turn as the writer and wakes one waiting writer.
    package func unlockWriter() {
        owner.withLock { owner in
            owner = 0
            self.owner.signal()
        }
    }

    // MARK: Engine state

    /// Runs `body` with the engine state slot locked (to create or share a handle).
    package func withEngineState<T>(_ body: (inout (any AnyObject & Sendable)?) throws -> T) rethrows -> T {
        try engineState.withLock { try body(&$0) }
    }

    // MARK: Commit observers

    /// Registers an observer; see `DataFile.addCommitObserver`.
    package func addObserver(_ observer: @escaping @Sendable (CommitEvent) -> Void) -> CommitObserverToken {
        observers.withLock { state in
            let id = state.next
            state.next += 1
            state.byID[id] = observer
            return CommitObserverToken(id: id)
        }
    }

    /// Removes an observer.
    package func removeObserver(_ token: CommitObserverToken) {
        _ = observers.withLock { $0.byID.removeValue(forKey: token.id) }
    }

    /// Removes several observers (those of a closing instance).
    package func removeObservers(_ tokens: some Sequence<CommitObserverToken>) {
        observers.withLock { state in
            for token in tokens { state.byID[token.id] = nil }
        }
    }

    /// Calls every observer with `event` (outside the observer lock).
    package func notify(_ event: CommitEvent) {
        guard !event.changes.isEmpty else { return }
        let callbacks = observers.withLock { state in
            state.byID.sorted { $0.key < $1.key }.map(\.value)
        }
        for callback in callbacks { callback(event) }
    }
}
