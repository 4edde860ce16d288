/// A parsed JSON value kept as a flat list of events (a "tape"), so it can be written into a
/// ``FleeceEncoder`` later in another order than the text's.
///
/// It exists for the importer: Couchbase Lite 2.8's `cblite cp` encodes a JSON line whole, then
/// writes a copy of that dictionary without its `_id`, entries in stored (sorted) order. The
/// copy's bytes depend on that order, so matching them used to take two encodings. A tape does it
/// with one parse and one encoding: ``addKeys(to:)`` adds the keys to the shared keys in text
/// order (as the first encoding would have), then ``write(to:omittingTopLevelKey:)`` writes every
/// dictionary's entries in the order the first encoding would have sorted them into.
///
/// ```swift
/// let tape = try JSONTape.parse(json: bytes)
/// let id = tape.topLevelValue(forKey: "_id").value
/// tape.addKeys(to: keys)
/// tape.write(to: encoder, omittingTopLevelKey: "_id")
/// ```
package final class JSONTape: JSONSink {
    enum Event {
        case string(start: Int, count: Int)
        /// `shared` is the key's shared-key index when the table took it while parsing.
        case key(start: Int, count: Int, shared: Int?)
        case bool(Bool)
        case null
        case int(Int64)
        case uint(UInt64)
        case double(Double)
        /// `end` is the index of the matching ``end`` event.
        case beginDictionary(end: Int)
        case beginArray(end: Int)
        case end
    }

    // One thread fills and reads a tape, and nothing borrows these: exclusivity checks (a
    // thread-local lookup per access) would only cost time, as in ``FleeceEncoder``.
    @exclusivity(unchecked) private(set) var events: [Event] = []
    /// Decoded string and key bytes, referenced by the events.
    @exclusivity(unchecked) private(set) var bytes: [UInt8] = []
    @exclusivity(unchecked) private var open: [Int] = []
    @exclusivity(unchecked) package private(set) var error: FleeceError?

    init() {}

    /// Parses `json`, checking its syntax as ``JSONConverter`` does.
    ///
    /// - Throws: ``FleeceError`` (`.jsonError`) with the byte offset of the problem.
    package static func parse(json: UnsafeRawBufferPointer,
                              maximumDepth: Int = JSONConverter.defaultMaximumDepth) throws -> JSONTape {
        let tape = JSONTape()
        tape.events.reserveCapacity(json.count / 8)
        tape.bytes.reserveCapacity(json.count)
        var parser = JSONParser(text: json, encoder: tape, json5: false, maximumDepth: maximumDepth)
        try parser.parseDocument()
        return tape
    }

    /// Adds the keys to `sharedKeys` in text order, as encoding the text with that table would;
    /// ``write(to:omittingTopLevelKey:)`` then writes the ones it took as integers.
    package func addKeys(to sharedKeys: SharedKeys) {
        // One lock for the whole document, not one per key.
        sharedKeys.addingKeys { indexAddingIfEligible in
            bytes.withUnsafeBytes { storage in
                for index in events.indices {
                    if case let .key(start, count, _) = events[index] {
                        let shared = indexAddingIfEligible(UnsafeRawBufferPointer(rebasing: storage[start..<(start + count)]))
                        events[index] = .key(start: start, count: count, shared: shared)
                    }
                }
            }
        }
    }

    /// Whether the value is a dictionary.
    package var isDictionary: Bool {
        if case .beginDictionary = events.first { return true }
        return false
    }

    /// Looks up a key of the top-level dictionary.
    ///
    /// - Returns: `present` false when there is no such key; `value` the value as text when it
    ///   is a string, or an integer or a double with an integral value (in decimal), else nil.
    package func topLevelValue(forKey key: String) -> (present: Bool, value: String?) {
        guard isDictionary else { return (false, nil) }
        var key = key
        // The last of repeated keys wins, as when the importer captured it while parsing.
        var found: Int?
        key.withUTF8 { wanted in
            var index = 1
            while index < events.count, case let .key(start, count, _) = events[index] {
                if count == wanted.count, bytes[start..<(start + count)].elementsEqual(wanted) { found = index + 1 }
                index = next(after: index + 1)
            }
        }
        guard let found else { return (false, nil) }
        switch events[found] {
        case let .string(start, count): return (true, String(decoding: bytes[start..<(start + count)], as: UTF8.self))
        case let .int(number): return (true, String(number))
        case let .uint(number): return (true, String(number))
        case let .double(number):
            return (true, number == number.rounded() && number.magnitude < 1e15 ? String(Int64(number)) : String(number))
        default: return (true, nil)
        }
    }

    /// Writes the value as a copy of its first encoding would be written: every dictionary's
    /// entries in sorted key order (shared keys first, by number; then by bytes), leaving out the
    /// top-level entries named `omitted`.
    package func write(to encoder: FleeceEncoder, omittingTopLevelKey omitted: String? = nil) {
        guard !events.isEmpty else { return }
        bytes.withUnsafeBytes { storage in
            var scratch: [(key: Int, value: Int)] = []
            writeValue(at: 0, to: encoder, storage: storage, omitted: omitted, scratch: &scratch)
        }
    }

    /// Writes the value exactly as parsing its text into `encoder` would: the same encoder calls
    /// in the same (text) order, so the bytes equal ``JSONConverter/write(json:to:json5:maximumDepth:)``'s.
    /// A document made from JSON is parsed into a tape once, which checks it, and written from
    /// the tape when it is saved, instead of parsing the text a second time then.
    ///
    /// With a shared-key table, the keys join it first under one lock (``addKeys(to:)``, in text
    /// order, as the encoder would add them one lock each), then are written by number.
    package func replay(to encoder: FleeceEncoder) {
        let table = encoder.sharedKeys
        if let table { addKeys(to: table) }
        bytes.withUnsafeBytes { storage in
            for event in events {
                switch event {
                case let .string(start, count):
                    encoder.writeStringBytes(UnsafeRawBufferPointer(rebasing: storage[start..<(start + count)]))
                case let .key(start, count, shared):
                    if table != nil, let shared {
                        encoder.writeKey(sharedIndex: shared)
                    } else {
                        encoder.writeKeyBytes(UnsafeRawBufferPointer(rebasing: storage[start..<(start + count)]))
                    }
                case let .bool(value): encoder.writeBool(value)
                case .null: encoder.writeNull()
                case let .int(value): encoder.writeInt(value)
                case let .uint(value): encoder.writeUInt(value)
                case let .double(value): encoder.writeDouble(value)
                case .beginDictionary: encoder.beginDictionary(reservingCapacity: 0)
                case .beginArray: encoder.beginArray(reservingCapacity: 0)
                case .end: encoder.endInnermostCollection()
                }
            }
        }
    }

    /// The index of the event after the value starting at `index`.
    private func next(after index: Int) -> Int {
        switch events[index] {
        case let .beginDictionary(end), let .beginArray(end): return end + 1
        default: return index + 1
        }
    }

    private func writeValue(at index: Int, to encoder: FleeceEncoder, storage: UnsafeRawBufferPointer,
                            omitted: String?, scratch: inout [(key: Int, value: Int)]) {
        switch events[index] {
        case let .string(start, count):
            encoder.writeStringBytes(UnsafeRawBufferPointer(rebasing: storage[start..<(start + count)]))
        case let .bool(value): encoder.writeBool(value)
        case .null: encoder.writeNull()
        // As a copy of an encoded long int: 3–4 bytes sit inline.
        case let .int(value): encoder.writeInt(value, asCopy: true)
        case let .uint(value): encoder.writeUInt(value, asCopy: true)
        case let .double(value): encoder.writeDouble(value)
        case let .beginArray(end):
            var count = 0
            var item = index + 1
            while item < end { count += 1; item = next(after: item) }
            encoder.beginArray(reservingCapacity: count)
            item = index + 1
            while item < end {
                writeValue(at: item, to: encoder, storage: storage, omitted: nil, scratch: &scratch)
                item = next(after: item)
            }
            encoder.endArray()
        case let .beginDictionary(end):
            let first = scratch.count
            var entry = index + 1
            while entry < end {
                let value = entry + 1
                if let omitted, case let .key(start, count, _) = events[entry],
                   omitted.utf8.elementsEqual(storage[start..<(start + count)]) {
                    entry = next(after: value)
                    continue
                }
                scratch.append((entry, value))
                entry = next(after: value)
            }
            // Equal (repeated) keys stay in text order, as the first encoding's stable sort left them.
            scratch[first...].sort {
                let order = compareKeys($0.key, $1.key, storage)
                return order != 0 ? order < 0 : $0.key < $1.key
            }
            let count = scratch.count - first
            encoder.beginDictionary(reservingCapacity: count)
            for position in first..<(first + count) {
                let (key, value) = scratch[position]
                if case let .key(start, length, shared) = events[key] {
                    if let shared {
                        encoder.writeKey(sharedIndex: shared)
                    } else {
                        encoder.writeKeyBytes(UnsafeRawBufferPointer(rebasing: storage[start..<(start + length)]))
                    }
                }
                writeValue(at: value, to: encoder, storage: storage, omitted: nil, scratch: &scratch)
            }
            encoder.endDictionary()
            scratch.removeSubrange(first...)
        case .key, .end:
            encoder.fail("malformed JSON tape")
        }
    }

    private func compareKeys(_ left: Int, _ right: Int, _ storage: UnsafeRawBufferPointer) -> Int {
        guard case let .key(leftStart, leftCount, leftShared) = events[left],
              case let .key(rightStart, rightCount, rightShared) = events[right] else { return 0 }
        switch (leftShared, rightShared) {
        case let (a?, b?): return a < b ? -1 : (a == b ? 0 : 1)
        case (.some, nil): return -1
        case (nil, .some): return 1
        case (nil, nil):
            return compareBytes(UnsafeRawBufferPointer(rebasing: storage[leftStart..<(leftStart + leftCount)]),
                                UnsafeRawBufferPointer(rebasing: storage[rightStart..<(rightStart + rightCount)]))
        }
    }

    // MARK: JSONSink

    private func store(_ bytes: UnsafeRawBufferPointer) -> Int {
        let start = self.bytes.count
        self.bytes.append(contentsOf: bytes)
        return start
    }

    @discardableResult func writeStringBytes(_ bytes: UnsafeRawBufferPointer) -> Int? {
        events.append(.string(start: store(bytes), count: bytes.count))
        return nil
    }

    func writeKeyBytes(_ bytes: UnsafeRawBufferPointer) {
        events.append(.key(start: store(bytes), count: bytes.count, shared: nil))
    }

    func writeBool(_ value: Bool) { events.append(.bool(value)) }
    func writeNull() { events.append(.null) }
    func writeInt(_ value: Int64) { events.append(.int(value)) }
    func writeUInt(_ value: UInt64) { events.append(.uint(value)) }

    func writeDouble(_ value: Double) {
        if !value.isFinite, error == nil {
            error = FleeceError(.invalidData, "JSON number \(value) cannot be stored")
        }
        events.append(.double(value))
    }

    func beginDictionary(reservingCapacity capacity: Int) {
        open.append(events.count)
        events.append(.beginDictionary(end: 0))
    }

    func beginArray(reservingCapacity capacity: Int) {
        open.append(events.count)
        events.append(.beginArray(end: 0))
    }

    func endDictionary() { close(dictionary: true) }
    func endArray() { close(dictionary: false) }

    private func close(dictionary: Bool) {
        guard let start = open.popLast() else { return }
        let end = events.count
        events.append(.end)
        events[start] = dictionary ? .beginDictionary(end: end) : .beginArray(end: end)
    }
}
