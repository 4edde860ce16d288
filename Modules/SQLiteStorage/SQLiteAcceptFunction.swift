import CSQLite

/// `cbl_accepts(body)`: a Swift test of a record's body that a scan's WHERE calls
/// (``SQLiteKeyStore/visitRecords(options:accepting:_:)``), so that SQLite passes over a
/// record the test rejects instead of returning it: no result row, no step back into Swift,
/// no column read. Registered on a connection the first time a scan uses it, and only for
/// statements run directly (`SQLITE_DIRECTONLY`: a file's schema cannot call it); the test is
/// the one the scan running on the connection set (without one, every body is accepted).
final class SQLiteAcceptFunction {
    static let name = "cbl_accepts"
    /// The running scan's test.
    var test: ((UnsafeRawBufferPointer) -> Bool)?

    /// `connection`'s function, registered on first use.
    static func on(_ connection: SQLiteConnection) throws -> SQLiteAcceptFunction {
        if let function = connection.acceptFunction { return function }
        let function = SQLiteAcceptFunction()
        let result = sqlite3_create_function_v2(
            connection.handle, name, 1, SQLITE_UTF8 | SQLITE_DIRECTONLY, Unmanaged.passRetained(function).toOpaque(),
            { context, _, values in SQLiteAcceptFunction.call(context, values) }, nil, nil,
            { pointer in if let pointer { Unmanaged<SQLiteAcceptFunction>.fromOpaque(pointer).release() } })
        guard result == SQLITE_OK else { throw connection.error(result, doing: "registering the SQL function \(name)") }
        connection.acceptFunction = function
        return function
    }

    private static func call(_ context: OpaquePointer?, _ values: UnsafeMutablePointer<OpaquePointer?>?) {
        guard let context, let values, let pointer = sqlite3_user_data(context) else { return }
        let value = values[0]
        let body = sqlite3_value_blob(value).map { UnsafeRawBufferPointer(start: $0, count: Int(sqlite3_value_bytes(value))) }
            ?? UnsafeRawBufferPointer(start: nil, count: 0)
        let accepted = Unmanaged<SQLiteAcceptFunction>.fromOpaque(pointer)._withUnsafeGuaranteedRef { $0.test?(body) ?? true }
        sqlite3_result_int(context, accepted ? 1 : 0)
    }
}
