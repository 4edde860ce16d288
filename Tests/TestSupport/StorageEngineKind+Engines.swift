import Foundation
import LiteStorage
import RocksDBStorage
import SQLiteStorage

extension StorageEngineKind {
    /// The engine this kind names.
    package var engine: any StorageEngine {
        switch self {
        case .sqlite: SQLiteEngine()
        case .rocksdb: RocksDBEngine()
        }
    }

    /// The other engine (for "opening the other engine's files" checks).
    package var other: StorageEngineKind { self == .sqlite ? .rocksdb : .sqlite }

    /// A data file location inside `directory`, named as the engine names it in a bundle.
    package func dataFilePath(in directory: TemporaryDirectory) -> String {
        engine.dataFilePath(inBundle: directory.path)
    }

    /// Creates a new, empty data file in `directory`.
    package func createDataFile(in directory: TemporaryDirectory) throws -> any DataFile {
        try engine.open(at: dataFilePath(in: directory), options: DataFileOptions(create: true))
    }

    /// Opens the data file at `path`.
    package func open(_ path: String, readOnly: Bool = false) throws -> any DataFile {
        try engine.open(at: path, options: DataFileOptions(create: false, readOnly: readOnly))
    }
}

/// Runs `body` with a new data file of `engine` in a fresh temporary directory, then closes it
/// and removes the directory.
///
/// ```swift
/// try withTemporaryDataFile(engine) { file in
///     let store = try file.keyStore("default")
///     …
/// }
/// ```
package func withTemporaryDataFile<T>(_ engine: StorageEngineKind,
                                      _ body: (any DataFile) throws -> T) throws -> T {
    try withTemporaryDirectory { directory in
        let file = try engine.createDataFile(in: directory)
        defer { try? file.close() }
        return try body(file)
    }
}

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
    guard let result = box.result else { throw StorageError(.engineFailure, "thread produced no result") }
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

/// A started thread's result, available after `wait()`.
package final class ThreadHandle<T: Sendable>: @unchecked Sendable {
    fileprivate let box = ResultBox<T>()
    fileprivate let done = DispatchSemaphore(value: 0)

    /// Waits for the thread and returns its result (or rethrows its error).
    package func wait() throws -> T {
        done.wait()
        done.signal()
        guard let result = box.result else { throw StorageError(.engineFailure, "thread produced no result") }
        return try result.get()
    }
}

// Written by one thread before a semaphore signal, read by another after the wait.
private final class ResultBox<T>: @unchecked Sendable {
    var result: Result<T, any Error>?
}
