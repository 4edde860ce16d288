/// Immutable Fleece bytes, owned, with the shared-key table their dictionaries use: the buffer
/// every ``FleeceValue`` view points into and keeps alive.
///
/// Untrusted bytes are validated once, here; views then read without checks or copies.
///
/// ```swift
/// let document = try FleeceDocument(bytes: body, sharedKeys: keys)
/// let name = document.root.dictionary?["name"]?.string
/// ```
package final class FleeceDocument: @unchecked Sendable {
    // @unchecked: `base` is written once in init and only read afterwards, so sharing across
    // threads is safe; it is freed in deinit when the last view is gone.
    // `var` only for `rebind(borrowing:)`; owned documents never change after init. Unchecked:
    // every value read loads these, and the run-time exclusivity check of a class `var` cost
    // more than the read itself (nothing here is ever accessed through `inout`).
    @exclusivity(unchecked) private(set) var base: UnsafeMutableRawPointer
    /// The number of bytes.
    @exclusivity(unchecked) package private(set) var byteCount: Int
    /// The shared-key table dictionary keys are looked up and decoded with.
    package let sharedKeys: SharedKeys?
    /// The shared keys as they were when the document was opened (see `SharedKeys.snapshot()`).
    let keys: SharedKeys.Snapshot?
    @exclusivity(unchecked) private(set) var rootOffset: Int
    /// False for a document that reads bytes it was lent (`init(borrowing:keys:)`).
    private let ownsBytes: Bool

    /// Validates and takes a copy of `bytes`.
    ///
    /// - Parameter trusted: skip validation (only for bytes this process or the database wrote).
    /// - Throws: ``FleeceError`` (`.invalidData`) naming the first problem found.
    package init(bytes: [UInt8], sharedKeys: SharedKeys? = nil, trusted: Bool = false) throws {
        (base, rootOffset) = try bytes.withUnsafeBytes { try Self.load($0, trusted: trusted) }
        byteCount = bytes.count
        self.sharedKeys = sharedKeys
        keys = sharedKeys?.snapshot()
        ownsBytes = true
    }

    /// Validates and takes a copy of the bytes at `buffer` (e.g. straight from a database row).
    package init(copying buffer: UnsafeRawBufferPointer, sharedKeys: SharedKeys? = nil, trusted: Bool = false) throws {
        (base, rootOffset) = try Self.load(buffer, trusted: trusted)
        byteCount = buffer.count
        self.sharedKeys = sharedKeys
        keys = sharedKeys?.snapshot()
        ownsBytes = true
    }

    /// Takes a copy of trusted bytes (not validated) that use `table`'s shared keys: for a scan
    /// that keeps some of the records it reads, without a snapshot of the keys per record.
    package init(copying buffer: UnsafeRawBufferPointer, keys table: FleeceKeyTable) throws {
        (base, rootOffset) = try Self.load(buffer, trusted: true)
        byteCount = buffer.count
        sharedKeys = table.sharedKeys
        keys = table.snapshot
        ownsBytes = true
    }

    /// Reads trusted bytes in place, without copying or validating them: for a scan that looks
    /// at each record's body once. The caller keeps `buffer` alive and unchanged for as long as
    /// the document or any value read from it is used (the query engine copies the rows it keeps).
    package init(borrowing buffer: UnsafeRawBufferPointer, keys table: FleeceKeyTable) throws {
        guard let start = buffer.baseAddress, buffer.count >= 2 else {
            throw FleeceError(.invalidData, "a Fleece value needs at least 2 bytes")
        }
        let reader = FleeceReader(base: start, count: buffer.count)
        rootOffset = try reader.findRoot().offset
        base = UnsafeMutableRawPointer(mutating: start)
        byteCount = buffer.count
        sharedKeys = table.sharedKeys
        keys = table.snapshot
        ownsBytes = false
    }

    private static func load(_ buffer: UnsafeRawBufferPointer, trusted: Bool) throws -> (UnsafeMutableRawPointer, Int) {
        let count = buffer.count
        let base = UnsafeMutableRawPointer.allocate(byteCount: max(count, 2), alignment: 8)
        if count > 0, let source = buffer.baseAddress { base.copyMemory(from: source, byteCount: count) }
        do {
            let reader = FleeceReader(base: UnsafeRawPointer(base), count: count)
            let root = try reader.findRoot()
            if !trusted { try reader.validate(root.offset, end: root.end) }
            return (base, root.offset)
        } catch {
            base.deallocate()
            throw error
        }
    }

    /// Points a borrowed document at other lent bytes, so a scan reuses one document object
    /// for every record. Values read from it before must not be used afterwards.
    ///
    /// - Throws: ``FleeceError`` for bytes without a root, or when the document owns its bytes.
    package func rebind(borrowing buffer: UnsafeRawBufferPointer) throws {
        guard !ownsBytes else { throw FleeceError(.encodeError, "only a borrowing document can be pointed at other bytes") }
        guard let start = buffer.baseAddress, buffer.count >= 2 else {
            throw FleeceError(.invalidData, "a Fleece value needs at least 2 bytes")
        }
        rootOffset = try FleeceReader(base: start, count: buffer.count).findRoot().offset
        base = UnsafeMutableRawPointer(mutating: start)
        byteCount = buffer.count
    }

    deinit { if ownsBytes { base.deallocate() } }

    /// The top-level value.
    package var root: FleeceValue { FleeceValue(document: self, offset: rootOffset) }

    /// A copy of the bytes.
    package var bytes: [UInt8] { Array(UnsafeRawBufferPointer(start: base, count: byteCount)) }

    /// Calls `body` with the bytes, without copying them.
    package func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try body(UnsafeRawBufferPointer(start: base, count: byteCount))
    }

    var reader: FleeceReader { FleeceReader(base: UnsafeRawPointer(base), count: byteCount) }
}

extension FleeceDocument {
    /// Parses JSON into a new document (see ``JSONConverter``).
    package convenience init(json: String, sharedKeys: SharedKeys? = nil, json5: Bool = false) throws {
        let bytes = try JSONConverter.fleece(fromJSON: json, sharedKeys: sharedKeys, json5: json5)
        try self.init(bytes: bytes, sharedKeys: sharedKeys, trusted: true)
    }
}
