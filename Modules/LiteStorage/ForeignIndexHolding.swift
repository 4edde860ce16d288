/// A data file that holds foreign indexes' data itself, as a SQLite file written by Couchbase
/// Lite holds LiteCore's expression indexes and FTS tables (which SQLite keeps up to date on
/// every write through the SQL functions the engine registers). A RocksDB file holds none: it
/// only carries definitions (``ForeignIndex/carrierStoreName``).
///
/// The query engine adopts such indexes as its own; these are the few generic operations it
/// needs on the originals without naming the engine's language: drop one (so that the program
/// that made it does not keep using a definition the user deleted) and read one back (to
/// check that its expressions still evaluate).
package protocol ForeignIndexHolding: DataFile {
    /// Removes the file's own structures of foreign index `name` — for LiteCore: its SQL index
    /// or FTS table with its triggers, and its row in the `indexes` table — inside the current
    /// write transaction, or its own.
    /// - Returns: whether there was anything to remove.
    @discardableResult
    func dropNativeForeignIndex(named name: String) throws -> Bool

    /// The entries of foreign value index `name`, read through that index (in its order), with
    /// its expressions evaluated by the engine as the index's creator defined them.
    /// - Throws: `StorageError.notFound` when the file holds no such value index.
    func foreignIndexEntries(named name: String) throws -> [ForeignIndexEntry]

    /// Re-creates, in the file's own structures, the carried value indexes (see
    /// ``ForeignIndex/carrierStoreName``) the file lacks — those whose expressions the engine
    /// can write as its creator did — and forgets their carried definitions, so a file
    /// converted back to this engine gives the original program its indexes again. Inside the
    /// current write transaction, or its own; the file must have been opened with a
    /// `RecordValueReader` (the indexes are built from the records).
    /// - Returns: the names of the indexes re-created.
    @discardableResult
    func restoreCarriedForeignIndexes() throws -> [String]
}
