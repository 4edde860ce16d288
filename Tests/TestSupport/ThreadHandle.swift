import Foundation
import LiteStorage

/// A started thread's result, available after `wait()`.
package final class ThreadHandle<T: Sendable>: @unchecked Sendable {
    let box = ResultBox<T>()
    let done = DispatchSemaphore(value: 0)

    /// Waits for the thread and returns its result (or rethrows its error).
    package func wait() throws -> T {
        done.wait()
        done.signal()
        guard let result = box.result else { throw StorageError(.unexpectedError, "thread produced no result") }
        return try result.get()
    }
}
