import CSQLite
import LiteStorage

// SQLITE_TRANSIENT is a macro cast that Swift does not import.
let sqliteTransient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

/// A prepared statement on one connection. Used by one thread at a time (its connection's).
/// Finalized by its connection (a cached statement) or when released, once.
package final class SQLiteStatement {
    let handle: OpaquePointer
    unowned let connection: SQLiteConnection
    /// The first failed bind since the last reset: `step` throws it instead of running the
    /// statement with a missing value (binds stay non-throwing so call sites stay simple).
    private var bindFailure: StorageError?

    init(handle: OpaquePointer, connection: SQLiteConnection) {
        self.handle = handle
        self.connection = connection
    }

    private var isFinalized = false

    deinit { finalize() }

    /// Releases SQLite's statement; later calls do nothing.
    func finalize() {
        guard !isFinalized else { return }
        isFinalized = true
        sqlite3_finalize(handle)
    }

    /// Clears the previous run's state before binding new values.
    package func reset() {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
        bindFailure = nil
    }

    private func checkBind(_ result: Int32, _ index: Int32) {
        guard result != SQLITE_OK, bindFailure == nil else { return }
        bindFailure = connection.error(result, doing: "binding parameter \(index) of \(String(cString: sqlite3_sql(handle)))")
    }

    private func tooLarge(_ count: Int, _ index: Int32) -> Bool {
        guard count > Int(Int32.max) else { return false }
        if bindFailure == nil {
            bindFailure = StorageError(.invalidParameter, "SQLite database \"\(connection.path)\": a value of \(count) "
                                       + "bytes is too large to store (parameter \(index))")
        }
        return true
    }

    /// Binds text to a 1-based parameter (a failure is thrown by the next `step`).
    package func bind(_ index: Int32, _ text: String) {
        var text = text
        text.withUTF8 { buffer in
            guard !tooLarge(buffer.count, index) else { return }
            checkBind(sqlite3_bind_text(handle, index, UnsafeRawPointer(buffer.baseAddress)?
                .assumingMemoryBound(to: CChar.self), Int32(buffer.count), sqliteTransient), index)
        }
    }

    func bind(_ index: Int32, _ bytes: [UInt8]) {
        bytes.withUnsafeBytes { buffer in
            guard !tooLarge(buffer.count, index) else { return }
            // A zero-length blob needs a non-null pointer, or SQLite stores NULL.
            checkBind(sqlite3_bind_blob(handle, index, buffer.baseAddress ?? UnsafeRawPointer(bitPattern: 1),
                                        Int32(buffer.count), sqliteTransient), index)
        }
    }

    /// Binds `first` and `second` to parameters 1 and 2 without copying them and runs the
    /// statement to completion. The bindings point into the arrays, so they are reset and
    /// cleared before the arrays' buffers are let go (SQLite's copy of every key and value was
    /// a malloc and a memcpy per put).
    func run(bindingBlobs first: [UInt8], _ second: [UInt8]) throws {
        try first.withUnsafeBytes { first in
            try second.withUnsafeBytes { second in
                defer {
                    sqlite3_reset(handle)
                    sqlite3_clear_bindings(handle)
                }
                bindInPlace(1, first)
                bindInPlace(2, second)
                try run()
            }
        }
    }

    /// Binds each pair's key and value as blobs to parameters 1, 2, 3, 4, … and runs the
    /// statement to completion. The bytes are copied into one buffer first (one allocation
    /// instead of one per blob) and bound in place, cleared before the buffer is let go.
    func run(bindingPairs pairs: ArraySlice<(key: [UInt8], value: [UInt8])>) throws {
        let total = pairs.reduce(0) { $0 + $1.key.count + $1.value.count }
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: max(total, 1), alignment: 1)
        defer {
            sqlite3_reset(handle)
            sqlite3_clear_bindings(handle)
            buffer.deallocate()
        }
        var offset = 0
        var index: Int32 = 1
        func bind(_ blob: [UInt8]) {
            let target = UnsafeMutableRawBufferPointer(rebasing: buffer[offset..<(offset + blob.count)])
            target.copyBytes(from: blob)
            bindInPlace(index, UnsafeRawBufferPointer(target))
            offset += blob.count
            index += 1
        }
        for (key, value) in pairs {
            bind(key)
            bind(value)
        }
        try run()
    }

    /// Binds each packed entry's key and value as blobs in place (and its position when
    /// `positions`) to parameters 1, 2, 3, … and runs the statement to completion; `bytes` is
    /// the entries' buffer, which outlives the bindings (they are cleared before returning).
    func run(bindingPacked entries: ArraySlice<PackedByteKeyEntries.Entry>, in bytes: UnsafeRawBufferPointer,
             positions: Bool) throws {
        defer {
            sqlite3_reset(handle)
            sqlite3_clear_bindings(handle)
        }
        var index: Int32 = 1
        for entry in entries {
            bindInPlace(index, UnsafeRawBufferPointer(rebasing: bytes[entry.keyStart..<entry.valueStart]))
            bindInPlace(index + 1, UnsafeRawBufferPointer(rebasing: bytes[entry.valueStart..<entry.end]))
            index += 2
            if positions {
                bind(index, entry.position)
                index += 1
            }
        }
        try run()
    }

    /// Binds `buffer` as a blob SQLite reads in place (SQLITE_STATIC, a nil destructor): the
    /// caller keeps it alive until the bindings are cleared.
    private func bindInPlace(_ index: Int32, _ buffer: UnsafeRawBufferPointer) {
        guard !tooLarge(buffer.count, index) else { return }
        // A zero-length blob needs a non-null pointer, or SQLite stores NULL.
        checkBind(sqlite3_bind_blob(handle, index, buffer.baseAddress ?? UnsafeRawPointer(bitPattern: 1),
                                    Int32(buffer.count), nil), index)
    }

    /// Binds an integer to a 1-based parameter.
    package func bind(_ index: Int32, _ value: Int64) { checkBind(sqlite3_bind_int64(handle, index, value), index) }

    func bind(_ index: Int32, _ value: UInt64) {
        checkBind(sqlite3_bind_int64(handle, index, Int64(bitPattern: value)), index)
    }

    func bindNull(_ index: Int32) { checkBind(sqlite3_bind_null(handle, index), index) }

    /// Advances; `true` when a row is available, `false` when done.
    package func step() throws -> Bool {
        if let bindFailure { throw bindFailure }
        let result = sqlite3_step(handle)
        switch result {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default:
            throw connection.error(result, doing: "running \(String(cString: sqlite3_sql(handle)))")
        }
    }

    /// Runs to completion, ignoring rows.
    func run() throws {
        while try step() {}
    }

    /// Whether the column is NULL.
    package func isNull(_ column: Int32) -> Bool { sqlite3_column_type(handle, column) == SQLITE_NULL }

    /// The column as an integer.
    package func int64(_ column: Int32) -> Int64 { sqlite3_column_int64(handle, column) }

    func uint64(_ column: Int32) -> UInt64 { UInt64(bitPattern: sqlite3_column_int64(handle, column)) }

    /// The column as text (NULL reads as empty).
    package func text(_ column: Int32) -> String {
        guard let pointer = sqlite3_column_text(handle, column) else { return "" }
        let count = Int(sqlite3_column_bytes(handle, column))
        return String(decoding: UnsafeBufferPointer(start: pointer, count: count), as: UTF8.self)
    }

    /// The column's bytes without a copy: valid until the next step, reset or finalize.
    func borrowedBytes(_ column: Int32) -> UnsafeRawBufferPointer {
        let pointer = sqlite3_column_blob(handle, column)
        let count = Int(sqlite3_column_bytes(handle, column))
        guard let pointer, count > 0 else { return UnsafeRawBufferPointer(start: nil, count: 0) }
        return UnsafeRawBufferPointer(start: pointer, count: count)
    }

    /// The column's bytes, copied.
    package func bytes(_ column: Int32) -> [UInt8] {
        let pointer = sqlite3_column_blob(handle, column)
        let count = Int(sqlite3_column_bytes(handle, column))
        guard let pointer, count > 0 else { return [] }
        return [UInt8](UnsafeRawBufferPointer(start: pointer, count: count))
    }
}
