import Dispatch

/// Runs the async write transactions of one database file, one after another, on a dispatch
/// queue of their own: an `async` caller waiting for the write lock then waits as a suspended
/// task, never as a blocked thread of Swift concurrency's small shared pool (a few blocked
/// writers could otherwise starve every other task of the process).
final class SerialWriter: Sendable {
    private let queue: DispatchQueue

    init(label: String) {
        queue = DispatchQueue(label: label, qos: .userInitiated)
    }

    /// Runs `body` on the writer's queue and resumes the caller with its result.
    func run<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            queue.async { continuation.resume(with: Result { try body() }) }
        }
    }

    private static let registry = PerFileRegistry { SerialWriter(label: "CouchbaseLite.writer") }

    /// The writer of the database file at `path`.
    static func forPath(_ path: String) -> SerialWriter { registry.value(forPath: path) }
}

extension DatabaseCore {
    /// Runs `body` as one write transaction on the file's writer queue (see ``SerialWriter``),
    /// for async callers: the task is suspended, not blocking a thread, while it waits.
    package func write<T: Sendable>(_ body: @escaping @Sendable (DatabaseCore) throws -> T) async throws -> T {
        try checkOpen()
        return try await writer.run { [self] in try inTransaction { _ in try body(self) } }
    }
}
