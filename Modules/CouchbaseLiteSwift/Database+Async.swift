import LiteDatabase

extension Database {
    /// Runs `block` as one atomic transaction for async code, on the database's writer queue:
    /// while it waits for another writer, the calling task is suspended instead of blocking one
    /// of Swift concurrency's shared threads. Inside `block`, use the synchronous API
    /// (`saveDocument`, `deleteDocument`, …); everything it changes commits together, or
    /// nothing when it throws.
    ///
    /// ```swift
    /// let saved = try await database.write { db in
    ///     try db.saveDocument(MutableDocument(id: "hotel_1").setString("Ritz", forKey: "name"))
    ///     return db.count
    /// }
    /// ```
    ///
    /// - Returns: what `block` returns.
    /// - Throws: what `block` throws (unchanged), or `CouchbaseLiteError` when the database
    ///   cannot write.
    public func write<T: Sendable>(_ block: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await CouchbaseLiteError.convertingModuleErrors { try await core.write { _ in try block(self) } }
    }
}
