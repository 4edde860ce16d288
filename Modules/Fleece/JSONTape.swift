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
    enum Kind: UInt8 {
        case string, key, bool, null, int, uint, double, beginDictionary, beginArray, end
    }

    /// One value, key or collection boundary: 16 bytes, so a tape is about as large as its text.
    struct Event {
        var kind: Kind
        /// A key's shared-key index once ``addKeys(to:)`` gave it one, else -1.
        var shared: Int16 = -1
        /// A string's or key's byte count.
        var count: UInt32 = 0
        /// A string's or key's start in `bytes`; a number's bits; a bool's value; a collection's
        /// index of its `end` event.
        var payload: UInt64 = 0

        var start: Int { Int(truncatingIfNeeded: payload) }
    }

    // One thread fills and reads a tape, and nothing borrows these: exclusivity checks (a
    // thread-local lookup per access) would only cost time, as in ``FleeceEncoder``.
    @exclusivity(unchecked) private(set) var events = EncoderBuffer<Event>(capacity: 16)
    /// The text parsed, kept (a string is kept without a copy): string and key events point
    /// into it, so an unescaped string is not copied a second time.
    private var source: Source = .bytes([])
    /// The unescaped bytes of strings that had escapes; their events' starts count from the
    /// end of the text.
    @exclusivity(unchecked) private var escapes: [UInt8] = []
    @exclusivity(unchecked) private var open: [Int] = []
    @exclusivity(unchecked) package private(set) var error: FleeceError?
    /// The text while it is parsed: strings the parser hands over from inside it are events
    /// pointing at their place in the copy.
    @exclusivity(unchecked) private var text = UnsafeRawBufferPointer(start: nil, count: 0)

    private enum Source {
        case string(String)
        case bytes([UInt8])
        /// Text the tape may read only inside ``withParsed(json:maximumDepth:_:)``.
        case borrowed(UnsafeRawBufferPointer)
    }

    /// The text and the unescaped strings, as the events address them.
    struct Storage {
        let text: UnsafeRawBufferPointer
        let escapes: UnsafeRawBufferPointer

        subscript(event: Event) -> UnsafeRawBufferPointer {
            let start = event.start
            if start < text.count { return UnsafeRawBufferPointer(rebasing: text[start..<(start + Int(event.count))]) }
            let offset = start - text.count
            return UnsafeRawBufferPointer(rebasing: escapes[offset..<(offset + Int(event.count))])
        }
    }

    init() {}

    /// Parses `json`, checking its syntax as ``JSONConverter`` does; the tape keeps a copy.
    ///
    /// - Throws: ``FleeceError`` (`.jsonError`) with the byte offset of the problem.
    package static func parse(json: UnsafeRawBufferPointer,
                              maximumDepth: Int = JSONConverter.defaultMaximumDepth) throws -> JSONTape {
        let tape = JSONTape()
        tape.source = .bytes(Array(json))
        try tape.fill(from: json, maximumDepth: maximumDepth)
        return tape
    }

    /// Parses `json` as ``parse(json:maximumDepth:)-(UnsafeRawBufferPointer,_)`` does, keeping the
    /// string itself instead of a copy of its bytes.
    package static func parse(json: String, maximumDepth: Int = JSONConverter.defaultMaximumDepth) throws -> JSONTape {
        var json = json
        json.makeContiguousUTF8()
        let tape = JSONTape()
        tape.source = .string(json)
        try json.withUTF8 { try tape.fill(from: UnsafeRawBufferPointer($0), maximumDepth: maximumDepth) }
        return tape
    }

    /// Parses `json` and hands `body` the tape, or the parse's error; the tape reads the text
    /// where it lies, so it must not be kept after `body` returns (it is emptied then).
    package static func withParsed<R>(json: UnsafeRawBufferPointer, maximumDepth: Int = JSONConverter.defaultMaximumDepth,
                                      _ body: (Result<JSONTape, any Error>) throws -> R) rethrows -> R {
        let tape = JSONTape()
        tape.source = .borrowed(json)
        defer {
            tape.source = .bytes([])
            tape.events.removeAll()
        }
        do {
            try tape.fill(from: json, maximumDepth: maximumDepth)
        } catch {
            return try body(.failure(error))
        }
        return try body(.success(tape))
    }

    private func fill(from json: UnsafeRawBufferPointer, maximumDepth: Int) throws {
        guard json.count < Int(UInt32.max) else {
            throw FleeceError(.jsonError, "JSON: a document of \(json.count) bytes is larger than 4 GB")
        }
        events.reserve(json.count / 8)
        text = json
        defer { text = UnsafeRawBufferPointer(start: nil, count: 0) }
        var parser = JSONParser(text: json, encoder: self, json5: false, maximumDepth: maximumDepth)
        try parser.parseDocument()
    }

    /// Calls `body` with the text and the unescaped strings.
    private func withStorage<R>(_ body: (Storage) -> R) -> R {
        escapes.withUnsafeBytes { escapes in
            switch source {
            case .string(var string):
                return string.withUTF8 { body(Storage(text: UnsafeRawBufferPointer($0), escapes: escapes)) }
            case .bytes(let bytes):
                return bytes.withUnsafeBytes { body(Storage(text: $0, escapes: escapes)) }
            case .borrowed(let text):
                return body(Storage(text: text, escapes: escapes))
            }
        }
    }

    /// Adds the keys to `sharedKeys` in text order, as encoding the text with that table would;
    /// ``write(to:omittingTopLevelKey:)`` then writes the ones it took as integers.
    package func addKeys(to sharedKeys: SharedKeys) {
        // One lock for the whole document, not one per key.
        sharedKeys.addingKeys { indexAddingIfEligible in
            withStorage { storage in
                for index in 0..<events.count where events[index].kind == .key {
                    let shared = indexAddingIfEligible(storage[events[index]])
                    events[index].shared = shared.map { Int16(truncatingIfNeeded: $0) } ?? -1
                }
            }
        }
    }

    /// Whether the value is a dictionary.
    package var isDictionary: Bool {
        !events.isEmpty && events[0].kind == .beginDictionary
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
        withStorage { storage in
            key.withUTF8 { wanted in
                var index = 1
                while index < events.count, events[index].kind == .key {
                    let event = events[index]
                    if Int(event.count) == wanted.count, storage[event].elementsEqual(wanted) { found = index + 1 }
                    index = next(after: index + 1)
                }
            }
        }
        guard let found else { return (false, nil) }
        let event = events[found]
        switch event.kind {
        case .string: return (true, withStorage { String(decoding: $0[event], as: UTF8.self) })
        case .int: return (true, String(Int64(bitPattern: event.payload)))
        case .uint: return (true, String(event.payload))
        case .double:
            let number = Double(bitPattern: event.payload)
            return (true, number == number.rounded() && number.magnitude < 1e15 ? String(Int64(number)) : String(number))
        default: return (true, nil)
        }
    }

    /// Writes the value as a copy of its first encoding would be written: every dictionary's
    /// entries in sorted key order (shared keys first, by number; then by bytes), leaving out the
    /// top-level entries named `omitted`.
    package func write(to encoder: FleeceEncoder, omittingTopLevelKey omitted: String? = nil) {
        guard !events.isEmpty else { return }
        withStorage { storage in
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
        withStorage { storage in
            for index in 0..<events.count {
                let event = events[index]
                switch event.kind {
                case .string:
                    encoder.writeStringBytes(storage[event])
                case .key:
                    if table != nil, event.shared >= 0 {
                        encoder.writeKey(sharedIndex: Int(event.shared))
                    } else {
                        encoder.writeKeyBytes(storage[event])
                    }
                case .bool: encoder.writeBool(event.payload != 0)
                case .null: encoder.writeNull()
                case .int: encoder.writeInt(Int64(bitPattern: event.payload))
                case .uint: encoder.writeUInt(event.payload)
                case .double: encoder.writeDouble(Double(bitPattern: event.payload))
                case .beginDictionary: encoder.beginDictionary(reservingCapacity: 0)
                case .beginArray: encoder.beginArray(reservingCapacity: 0)
                case .end: encoder.endInnermostCollection()
                }
            }
        }
    }

    /// The index of the event after the value starting at `index`.
    private func next(after index: Int) -> Int {
        switch events[index].kind {
        case .beginDictionary, .beginArray: return Int(truncatingIfNeeded: events[index].payload) + 1
        default: return index + 1
        }
    }

    private func writeValue(at index: Int, to encoder: FleeceEncoder, storage: Storage,
                            omitted: String?, scratch: inout [(key: Int, value: Int)]) {
        let event = events[index]
        switch event.kind {
        case .string:
            encoder.writeStringBytes(storage[event])
        case .bool: encoder.writeBool(event.payload != 0)
        case .null: encoder.writeNull()
        // As a copy of an encoded long int: 3–4 bytes sit inline.
        case .int: encoder.writeInt(Int64(bitPattern: event.payload), asCopy: true)
        case .uint: encoder.writeUInt(event.payload, asCopy: true)
        case .double: encoder.writeDouble(Double(bitPattern: event.payload))
        case .beginArray:
            let end = Int(truncatingIfNeeded: event.payload)
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
        case .beginDictionary:
            let end = Int(truncatingIfNeeded: event.payload)
            let first = scratch.count
            var entry = index + 1
            while entry < end {
                let value = entry + 1
                if let omitted, events[entry].kind == .key,
                   omitted.utf8.elementsEqual(storage[events[entry]]) {
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
                let keyEvent = events[key]
                if keyEvent.kind == .key {
                    if keyEvent.shared >= 0 {
                        encoder.writeKey(sharedIndex: Int(keyEvent.shared))
                    } else {
                        encoder.writeKeyBytes(storage[keyEvent])
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

    private func compareKeys(_ left: Int, _ right: Int, _ storage: Storage) -> Int {
        let a = events[left], b = events[right]
        guard a.kind == .key, b.kind == .key else { return 0 }
        switch (a.shared >= 0, b.shared >= 0) {
        case (true, true): return a.shared < b.shared ? -1 : (a.shared == b.shared ? 0 : 1)
        case (true, false): return -1
        case (false, true): return 1
        case (false, false):
            return compareBytes(storage[a], storage[b])
        }
    }

    // MARK: JSONSink

    /// Where an event finds `bytes`: their place in the text when the parser hands them over
    /// from inside it, else (unescaped into the parser's scratch) a copy in `escapes`.
    @inline(__always)
    private func store(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
        if let textStart = text.baseAddress, let start = bytes.baseAddress,
           start >= textStart, start + bytes.count <= textStart + text.count {
            return UInt64(start - textStart)
        }
        let offset = text.count + escapes.count
        escapes.append(contentsOf: bytes)
        return UInt64(offset)
    }

    @discardableResult func writeStringBytes(_ bytes: UnsafeRawBufferPointer) -> Int? {
        events.append(Event(kind: .string, count: UInt32(truncatingIfNeeded: bytes.count), payload: store(bytes)))
        return nil
    }

    func writeKeyBytes(_ bytes: UnsafeRawBufferPointer) {
        events.append(Event(kind: .key, count: UInt32(truncatingIfNeeded: bytes.count), payload: store(bytes)))
    }

    func writeBool(_ value: Bool) { events.append(Event(kind: .bool, payload: value ? 1 : 0)) }
    func writeNull() { events.append(Event(kind: .null)) }
    func writeInt(_ value: Int64) { events.append(Event(kind: .int, payload: UInt64(bitPattern: value))) }
    func writeUInt(_ value: UInt64) { events.append(Event(kind: .uint, payload: value)) }

    func writeDouble(_ value: Double) {
        if !value.isFinite, error == nil {
            error = FleeceError(.invalidData, "JSON number \(value) cannot be stored")
        }
        events.append(Event(kind: .double, payload: value.bitPattern))
    }

    func beginDictionary(reservingCapacity capacity: Int) {
        open.append(events.count)
        events.append(Event(kind: .beginDictionary))
    }

    func beginArray(reservingCapacity capacity: Int) {
        open.append(events.count)
        events.append(Event(kind: .beginArray))
    }

    func endDictionary() { close() }
    func endArray() { close() }

    private func close() {
        guard let start = open.popLast() else { return }
        events[start].payload = UInt64(events.count)
        events.append(Event(kind: .end))
    }
}
