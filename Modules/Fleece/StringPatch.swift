/// String patches inside JSON deltas: `N=` copies N bytes of the old string, `N-` skips N,
/// `N+text|` inserts N bytes of text.
enum StringPatch {
    /// A patch from `old` to `new` made of the common prefix and suffix around one change, or
    /// nil when `new` is shorter than ``JSONDelta/minimumStringDiffLength`` or the patch would
    /// not be clearly shorter than `new` (LiteCore's rule: patch + 6 < new length).
    /// Boundaries never split a UTF-8 sequence.
    static func create(from old: UnsafeRawBufferPointer, to new: UnsafeRawBufferPointer) -> String? {
        guard new.count >= JSONDelta.minimumStringDiffLength else { return nil }
        var prefix = 0
        while prefix < old.count && prefix < new.count && old[prefix] == new[prefix] { prefix += 1 }
        while prefix > 0 && (prefix < new.count && new[prefix] & 0xC0 == 0x80 || prefix < old.count && old[prefix] & 0xC0 == 0x80) { prefix -= 1 }
        var suffix = 0
        while suffix < old.count - prefix && suffix < new.count - prefix
                && old[old.count - 1 - suffix] == new[new.count - 1 - suffix] { suffix += 1 }
        // A suffix must start on a character boundary in both strings.
        while suffix > 0 && (new[new.count - suffix] & 0xC0 == 0x80 || old[old.count - suffix] & 0xC0 == 0x80) { suffix -= 1 }
        let deleted = old.count - prefix - suffix
        let inserted = UnsafeRawBufferPointer(rebasing: new[prefix..<(new.count - suffix)])
        var patch = ""
        if prefix > 0 { patch += "\(prefix)=" }
        if deleted > 0 { patch += "\(deleted)-" }
        if inserted.count > 0 { patch += "\(inserted.count)+" + String(decoding: inserted, as: UTF8.self) + "|" }
        if suffix > 0 { patch += "\(suffix)=" }
        guard patch.utf8.count + 6 < new.count else { return nil }
        return patch
    }

    /// Applies a patch to `old`.
    ///
    /// - Throws: ``FleeceError`` (`.invalidDelta`) when the patch is malformed or does not fit.
    static func apply(_ patch: [UInt8], to old: UnsafeRawBufferPointer) throws -> [UInt8] {
        var result: [UInt8] = []
        result.reserveCapacity(old.count)
        var position = 0
        var index = 0
        func error(_ message: String) -> FleeceError { FleeceError(.invalidDelta, "delta: string patch: \(message)", offset: index) }
        while index < patch.count {
            var length = 0
            let digitsStart = index
            while index < patch.count, patch[index] >= 0x30, patch[index] <= 0x39 {
                length = length * 10 + Int(patch[index] - 0x30)
                guard length <= 1 << 40 else { throw error("length too large") }
                index += 1
            }
            guard index > digitsStart, index < patch.count else { throw error("expected a length and an operation") }
            let operation = patch[index]
            index += 1
            switch operation {
            case UInt8(ascii: "="):
                guard position + length <= old.count else { throw error("copies past the end of the old string") }
                result.append(contentsOf: UnsafeRawBufferPointer(rebasing: old[position..<(position + length)]))
                position += length
            case UInt8(ascii: "-"):
                guard position + length <= old.count else { throw error("skips past the end of the old string") }
                position += length
            case UInt8(ascii: "+"):
                guard index + length < patch.count, patch[index + length] == UInt8(ascii: "|") else {
                    throw error("insertion is not followed by '|'")
                }
                result.append(contentsOf: patch[index..<(index + length)])
                index += length + 1
            default:
                throw error("unknown operation '\(UnicodeScalar(operation))'")
            }
        }
        guard position == old.count else { throw error("does not cover the whole old string") }
        return result
    }
}
