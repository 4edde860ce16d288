/// JSON deltas in the Fleece format used by delta sync (`Deltas.md`): create a delta between
/// two values, and apply one to the old value to rebuild the new one.
///
/// A delta is JSON: `[v]` replaces with v, `[]` deletes, `{k: delta…}` patches a dictionary
/// per key or an array per index (`"N-": [items]` replaces the tail from N), and
/// `["<ops>", 0, 2]` patches a string (`N=` copy, `N-` skip, `N+text|` insert, counted in
/// bytes). With `compatible`, deltas use JsonDiffPatch's forms (`[old, new]`, `[old, 0, 0]`).
///
/// ```swift
/// if let delta = JSONDelta.create(from: old.root, to: new.root) {
///     let rebuilt = try JSONDelta.apply(delta, to: old.root)
/// }
/// ```
package enum JSONDelta {
    /// The shortest new string for which a string patch is tried.
    package static let minimumStringDiffLength = 60

    /// The delta that turns `old` into `new` as JSON text, or nil when they are equal.
    /// A nil `old`/`new` stands for "absent".
    package static func create(from old: FleeceValue?, to new: FleeceValue?, compatible: Bool = false) -> String? {
        var builder = DeltaBuilder(compatible: compatible)
        guard builder.write(old, new, path: nil) else { return nil }
        return String(decoding: builder.json.out, as: UTF8.self)
    }

    /// Applies a delta (JSON text) to `old` and returns the Fleece bytes of the new value (the
    /// bytes of `undefined` when the delta deletes the value).
    ///
    /// - Throws: ``FleeceError`` (`.jsonError` for bad JSON, `.invalidDelta` when the delta does
    ///   not fit `old`).
    package static func apply(_ delta: String, to old: FleeceValue?, sharedKeys: SharedKeys? = nil) throws -> [UInt8] {
        let deltaDocument = try FleeceDocument(bytes: JSONConverter.fleece(fromJSON: delta, maximumDepth: 512), trusted: true)
        let encoder = FleeceEncoder(sharedKeys: sharedKeys)
        try apply(deltaDocument.root, to: old, encoder: encoder)
        return try encoder.finish()
    }

    /// Applies a delta (as a Fleece value) to `old`, writing the new value into `encoder`.
    package static func apply(_ delta: FleeceValue, to old: FleeceValue?, encoder: FleeceEncoder) throws {
        if let array = delta.array {
            try applyArray(array, to: old, encoder: encoder)
            return
        }
        switch delta.type {
        case .dictionary:
            guard let old else { throw FleeceError(.invalidDelta, "delta: a {…} patch has no old value to patch") }
            if let oldDict = old.dictionary {
                try patch(oldDict, with: FleeceDict(delta), encoder: encoder)
            } else if let oldArray = old.array {
                try patch(oldArray, with: FleeceDict(delta), encoder: encoder)
            } else {
                throw FleeceError(.invalidDelta, "delta: a {…} patch applies only to a dictionary or an array, not a \(old.type)")
            }
        default:
            encoder.writeValue(delta)
        }
    }

    static func isDeletion(_ delta: FleeceValue?) -> Bool {
        guard let array = delta?.array else { return false }
        return array.count == 0 || (array.count == 3 && array[2]?.int64 == 0)
    }

    private static func applyArray(_ delta: FleeceArray, to old: FleeceValue?, encoder: FleeceEncoder) throws {
        switch delta.count {
        case 0:
            guard old != nil else { throw FleeceError(.invalidDelta, "delta: [] deletes a value that is not there") }
            encoder.writeUndefined()
        case 1:
            encoder.writeValue(delta.item(0))
        case 2:
            guard old != nil else { throw FleeceError(.invalidDelta, "delta: [old, new] replaces a value that is not there") }
            encoder.writeValue(delta.item(1))
        case 3:
            switch delta.item(2).int64 {
            case 0:
                guard old != nil else { throw FleeceError(.invalidDelta, "delta: [old, 0, 0] deletes a value that is not there") }
                encoder.writeUndefined()
            case 2:
                guard let old, old.type == .string else { throw FleeceError(.invalidDelta, "delta: a string patch applies only to a string") }
                guard let patch = delta.item(0).data, !patch.isEmpty else { throw FleeceError(.invalidDelta, "delta: empty string patch") }
                let result = try old.withPayload { try StringPatch.apply(patch, to: $0) }
                result.withUnsafeBytes { _ = encoder.writeStringBytes($0) }
            default:
                throw FleeceError(.invalidDelta, "delta: unknown mode \(delta.item(2).int64) in a 3-item array")
            }
        default:
            throw FleeceError(.invalidDelta, "delta: an array of \(delta.count) items is not a delta")
        }
    }

    private static func patch(_ old: FleeceDict, with delta: FleeceDict, encoder: FleeceEncoder) throws {
        encoder.beginDictionary(reservingCapacity: old.count)
        var used = 0
        for (key, oldValue) in old {
            let valueDelta = delta[key]
            if valueDelta != nil { used += 1 }
            guard !isDeletion(valueDelta) else { continue }
            encoder.writeKey(key)
            if let valueDelta { try apply(valueDelta, to: oldValue, encoder: encoder) } else { encoder.writeValue(oldValue) }
        }
        if used < delta.count {
            for (key, valueDelta) in delta where old[key] == nil {
                encoder.writeKey(key)
                try apply(valueDelta, to: nil, encoder: encoder)
            }
        }
        encoder.endDictionary()
    }

    private static func patch(_ old: FleeceArray, with delta: FleeceDict, encoder: FleeceEncoder) throws {
        encoder.beginArray(reservingCapacity: old.count)
        var remainder: FleeceValue?
        for (index, item) in old.enumerated() {
            if let replacement = delta[String(index)] {
                try apply(replacement, to: item, encoder: encoder)
            } else if let tail = delta["\(index)-"] {
                remainder = tail
                break
            } else {
                encoder.writeValue(item)
            }
        }
        if remainder == nil { remainder = delta["\(old.count)-"] }
        if let remainder {
            guard let items = remainder.array else { throw FleeceError(.invalidDelta, "delta: an \"N-\" array tail is not an array") }
            for item in items { encoder.writeValue(item) }
        }
        encoder.endArray()
    }
}
