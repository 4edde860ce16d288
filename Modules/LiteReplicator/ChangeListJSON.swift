import Fleece

/// The JSON bodies of the pusher's change lists, written straight into bytes.
///
/// A push lists every document once in a `proposeChanges` (active side) or `changes` (passive
/// side) message; building them as Foundation arrays for `JSONSerialization` was about 3 % of
/// a push's CPU time. The text is what `JSONSerialization` writes for the same arrays (no
/// spaces; strings escaped as LiteCore writes them), which any JSON reader takes alike.
enum ChangeListJSON {
    /// `proposeChanges`: `[[docID, revID, remoteRevID or "", bodySize], …]`.
    static func proposals(_ changes: [OutgoingChange]) -> [UInt8] {
        rows(changes) { change, out in
            appendString(change.documentID, to: &out)
            out.append(UInt8(ascii: ","))
            appendString(change.revisionID.string, to: &out)
            out.append(UInt8(ascii: ","))
            appendString(change.remoteAncestor?.string ?? "", to: &out)
            out.append(UInt8(ascii: ","))
            appendInteger(change.bodySize, to: &out)
        }
    }

    /// `changes`: `[[sequence, docID, revID, deleted (1/0), bodySize], …]`.
    static func changes(_ changes: [OutgoingChange]) -> [UInt8] {
        rows(changes) { change, out in
            appendInteger(change.sequence, to: &out)
            out.append(UInt8(ascii: ","))
            appendString(change.documentID, to: &out)
            out.append(UInt8(ascii: ","))
            appendString(change.revisionID.string, to: &out)
            out.append(UInt8(ascii: ","))
            out.append(UInt8(ascii: change.deleted ? "1" : "0"))
            out.append(UInt8(ascii: ","))
            appendInteger(change.bodySize, to: &out)
        }
    }

    /// An array of one array a change, whose items `row` writes.
    private static func rows(_ changes: [OutgoingChange],
                             _ row: (OutgoingChange, inout [UInt8]) -> Void) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(changes.count * 80 + 2)
        out.append(UInt8(ascii: "["))
        for (index, change) in changes.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            out.append(UInt8(ascii: "["))
            row(change, &out)
            out.append(UInt8(ascii: "]"))
        }
        out.append(UInt8(ascii: "]"))
        return out
    }

    /// A list of integers (`proposeChanges`' statuses): `[0,304,409]`.
    static func integers(_ values: [Int]) -> [UInt8] {
        var out: [UInt8] = [UInt8(ascii: "[")]
        out.reserveCapacity(values.count * 4 + 2)
        for (index, value) in values.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            appendInteger(value, to: &out)
        }
        out.append(UInt8(ascii: "]"))
        return out
    }

    private static func appendString(_ text: String, to out: inout [UInt8]) {
        var text = text
        text.withUTF8 { JSONText.appendString(UnsafeRawBufferPointer($0), to: &out) }
    }

    private static func appendInteger(_ value: some BinaryInteger, to out: inout [UInt8]) {
        out.append(contentsOf: String(value).utf8)
    }
}
