import LiteSupport

/// The table that maps short, common dictionary keys to small integers (0…2047), shared by
/// every document of a database and persisted as a Fleece array of strings.
///
/// Thread-safe: one instance per database is shared by all its connections. Keys are only ever
/// appended; ``revert(toCount:)`` drops keys added by a transaction that was aborted.
///
/// ```swift
/// let keys = SharedKeys()
/// let encoder = FleeceEncoder(sharedKeys: keys)
/// ```
package final class SharedKeys: Sendable {
    /// The most keys a table holds (LiteCore's limit); later keys are written as strings.
    package static let maximumCount = 2048
    /// The longest key (in UTF-8 bytes) that is ever made shared.
    package static let maximumKeyLength = 16

    /// The table's contents at one moment: an immutable value (copy-on-write storage, so
    /// taking one costs two retains).
    struct Snapshot: Sendable {
        var byIndex: [String] = []
        var byKey = SmallKeyTable()
        /// Counts the table's changes (a key added, keys dropped): two snapshots of one table
        /// with the same version resolve every key alike.
        var version: UInt64 = 0

        func index(forBytes bytes: UnsafeRawBufferPointer) -> Int? {
            guard let smallKey = SmallKey(bytes) else { return nil }
            return byKey[smallKey]
        }

        func string(for index: Int) -> String? {
            index >= 0 && index < byIndex.count ? byIndex[index] : nil
        }
    }

    private typealias State = Snapshot

    private let state = Locked(State())
    /// Called when a lookup meets an integer key the table lacks: another writer (another
    /// process) may have added keys since the table was loaded.
    private let refresher = Locked<(@Sendable () -> Void)?>(nil)

    /// Makes an empty table.
    package init() {}

    /// Makes a table holding `keys`, in order (index = integer key).
    package init(keys: [String]) {
        state.withLock { state in
            for key in keys { Self.append(key, to: &state) }
        }
    }

    /// Makes a table from its persisted form: Fleece data whose root is an array of strings.
    ///
    /// - Throws: ``FleeceError`` when the data is not valid Fleece or not an array of strings.
    package convenience init(persisted bytes: [UInt8]) throws {
        self.init(keys: try Self.persistedKeys(bytes))
    }

    private static func append(_ key: String, to state: inout State) {
        var key = key
        let smallKey = key.withUTF8 { SmallKey(UnsafeRawBufferPointer($0)) }
        if let smallKey { state.byKey[smallKey] = state.byIndex.count }
        state.byIndex.append(key)
        state.version &+= 1
    }

    /// The table as it is now. A document takes one when it is opened: every integer key it
    /// holds was in the table before it was written, so its lookups need no lock.
    func snapshot() -> Snapshot { state.withLock { $0 } }

    /// The number of keys in the table.
    package var count: Int { state.withLock { $0.byIndex.count } }

    /// Every key, in index order.
    package var keys: [String] { state.withLock { $0.byIndex } }

    /// The persisted form: Fleece bytes of an array of the keys as strings, in index order.
    ///
    /// - Throws: ``FleeceError`` if encoding fails; never returns a partial table, since
    ///   persisting one would make every stored document decode with wrong keys.
    package func persistedBytes() throws -> [UInt8] {
        let keys = self.keys
        let encoder = FleeceEncoder()
        encoder.beginArray()
        for key in keys { encoder.writeString(key) }
        encoder.endArray()
        return try encoder.finish()
    }

    /// Forgets every key added after the first `count` (the keys added by an aborted transaction).
    package func revert(toCount count: Int) {
        state.withLock { Self.truncate(&$0, toCount: count) }
    }

    private static func truncate(_ state: inout State, toCount count: Int) {
        guard count >= 0, count < state.byIndex.count else { return }
        state.byIndex.removeSubrange(count...)
        state.version &+= 1
        // The lookup table cannot delete entries; rebuilding it is fine for a rare abort.
        var table = SmallKeyTable(capacity: state.byIndex.count)
        for (index, key) in state.byIndex.enumerated() {
            var key = key
            if let smallKey = key.withUTF8({ SmallKey(UnsafeRawBufferPointer($0)) }) { table[smallKey] = index }
        }
        state.byKey = table
    }

    /// The key string for an integer key, or nil when the table has no such key (even after
    /// asking the refresher, when one is set, to load keys added elsewhere).
    package func string(for index: Int) -> String? {
        guard index >= 0, index < Self.maximumCount else { return nil }
        if let found = state.withLock({ $0.string(for: index) }) { return found }
        guard let refresh = refresher.withLock({ $0 }) else { return nil }
        refresh()
        return state.withLock { $0.string(for: index) }
    }

    /// Sets what to call when a lookup meets an unknown integer key; it should load the
    /// persisted table and pass it to ``reload(keys:)``.
    package func setRefresher(_ refresh: (@Sendable () -> Void)?) {
        refresher.withLock { $0 = refresh }
    }

    /// Makes the table equal to `keys`, the table as persisted: keys the table has beyond
    /// their common prefix (added by a transaction that did not commit) are dropped, and the
    /// persisted keys it lacks are appended.
    ///
    /// - Returns: whether the table changed.
    @discardableResult
    package func reload(keys: [String]) -> Bool {
        state.withLock { state in
            var common = 0
            while common < keys.count, common < state.byIndex.count, keys[common] == state.byIndex[common] {
                common += 1
            }
            guard common < keys.count || common < state.byIndex.count else { return false }
            if common < state.byIndex.count { Self.truncate(&state, toCount: common) }
            for key in keys[common...] { Self.append(key, to: &state) }
            return true
        }
    }

    /// Reads a persisted table (Fleece data whose root is an array of strings).
    package static func persistedKeys(_ bytes: [UInt8]) throws -> [String] {
        if bytes.isEmpty { return [] }
        let document = try FleeceDocument(bytes: bytes)
        guard let array = document.root.array else {
            throw FleeceError(.invalidData, "shared keys: persisted data is not a Fleece array")
        }
        var keys: [String] = []
        keys.reserveCapacity(array.count)
        for item in array {
            guard let key = item.string else {
                throw FleeceError(.invalidData, "shared keys: entry \(keys.count) is not a string")
            }
            keys.append(key)
        }
        return keys
    }

    /// The integer for a key already in the table (never adds).
    package func index(for key: String) -> Int? {
        var key = key
        return key.withUTF8 { index(forBytes: UnsafeRawBufferPointer($0)) }
    }

    /// The integer for a key already in the table, given as UTF-8 bytes (never adds).
    package func index(forBytes bytes: UnsafeRawBufferPointer) -> Int? {
        guard let smallKey = SmallKey(bytes) else { return nil }
        return state.withLock { $0.byKey[smallKey] }
    }

    /// The integer for a key, adding it when it is eligible and the table is not full; nil when
    /// the key must be written as a string.
    package func indexAddingIfEligible(forBytes bytes: UnsafeRawBufferPointer) -> Int? {
        state.withLock { Self.indexAddingIfEligible(bytes, to: &$0) }
    }

    /// ``indexAddingIfEligible(forBytes:)`` for many keys under one lock: `body` gets a function
    /// that does it for one key (an importer passes a whole document's keys).
    package func addingKeys(_ body: (_ indexAddingIfEligible: (UnsafeRawBufferPointer) -> Int?) -> Void) {
        state.withLock { state in
            body { bytes in Self.indexAddingIfEligible(bytes, to: &state) }
        }
    }

    private static func indexAddingIfEligible(_ bytes: UnsafeRawBufferPointer, to state: inout State) -> Int? {
        guard let smallKey = SmallKey(bytes) else { return nil }
        if let index = state.byKey[smallKey] { return index }
        guard state.byIndex.count < maximumCount, isEligible(bytes) else { return nil }
        let index = state.byIndex.count
        state.byKey[smallKey] = index
        state.byIndex.append(String(decoding: bytes, as: UTF8.self))
        state.version &+= 1
        return index
    }

    /// Whether LiteCore would make this key shared: at most 16 bytes, each an ASCII letter,
    /// digit, `_` or `-` (the empty key qualifies).
    package static func isEligible(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard bytes.count <= maximumKeyLength else { return false }
        for byte in bytes {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"), UInt8(ascii: "-"):
                continue
            default:
                return false
            }
        }
        return true
    }
}
