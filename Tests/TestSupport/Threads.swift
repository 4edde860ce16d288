import Foundation
import LiteStorage

/// Runs `body` on a new thread and waits for it; returns its result or rethrows its error.
/// (A `DispatchQueue.sync` may run on the calling thread, which would defeat the purpose.)
package func onOtherThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) throws -> T {
    let box = ResultBox<T>()
    let done = DispatchSemaphore(value: 0)
    let thread = Thread {
        box.result = Result { try body() }
        done.signal()
    }
    thread.start()
    done.wait()
    guard let result = box.result else { throw StorageError(.unexpectedError, "thread produced no result") }
    return try result.get()
}

/// Starts `body` on a new thread; `wait()` on the returned value joins it.
package func startThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) -> ThreadHandle<T> {
    let handle = ThreadHandle<T>()
    let thread = Thread {
        handle.box.result = Result { try body() }
        handle.done.signal()
    }
    thread.start()
    return handle
}
