import PropertyBased
import Testing
import TestSupport
@testable import Fleece

/// `FleeceEncoder.writeValue` copies a stored value by offsets (no `FleeceValue` per item). Its
/// bytes must be those of the plain walk over `FleeceValue`s it replaced (kept below as the
/// reference), and must read back as the same JSON as the source: checked over generated
/// documents, narrow and wide, copied into an encoder with the same shared keys, with another
/// table, and with none.
@Suite(.ownThreads) struct EncoderCopyPropertyTests {
    private static let keys = ["name", "type", "a", "b", "Z", "zz", "geo", "lat", "lon", "aVeryLongKeyNameOverSixteen",
                               "with space", "é", "k-1", "_", "", "10"]
    private static let scalars = ["\"\"", "\"x\"", "\"hotel\"", "\"東京\"", "\"a longer string that is kept out of line\"",
                                  "0", "-1", "2048", "-2049", "100000", "-8388608", "2147483647", "4294967296", "18446744073709551615", "-9223372036854775808",
                                  "1.5", "-0.0", "1e300", "true", "false", "null"]

    private struct Builder {
        var choices: ChoiceSequence
        mutating func next(_ bound: Int) -> Int { choices.next(bound) }

        mutating func value(depth: Int) -> String {
            switch next(depth > 3 ? 3 : 5) {
            case 0, 1, 2: return scalars[next(scalars.count)]
            case 3: return "[" + (0..<next(5)).map { _ in value(depth: depth + 1) }.joined(separator: ",") + "]"
            default: return object(depth: depth + 1)
            }
        }

        mutating func object(depth: Int) -> String {
            "{" + (0..<next(7)).map { _ in "\"\(keys[next(keys.count)])\":\(value(depth: depth))" }
                .joined(separator: ",") + "}"
        }
    }

    /// The walk `writeValue` did before: a `FleeceValue` for every key and item.
    private static func referenceCopy(_ value: FleeceValue, into encoder: FleeceEncoder) {
        switch value.tag {
        case 0, 1, 2, 3:
            let size = value.tag == 1 ? 2 + Int(value.tagByte & 0x07)
                : value.tag == 2 ? (value.tagByte & 0x08 != 0 ? 10 : 6) : 2
            let padded = size + (size & 1)
            var bytes = (0..<size).map { value.reader.byte(value.offset + $0) }
            if padded > size { bytes.append(0) }
            bytes.withUnsafeBytes { encoder.writeRaw($0, canInline: true) }
        case 4: value.withPayload { _ = encoder.writeStringBytes($0) }
        case 5: value.withPayload { _ = encoder.writeBytes(tag: 0x50, $0) }
        case 6:
            let array = FleeceArray(value)
            encoder.beginArray(reservingCapacity: array.count)
            for item in array { referenceCopy(item, into: encoder) }
            encoder.endArray()
        default:
            let dict = FleeceDict(value)
            encoder.beginDictionary(reservingCapacity: dict.count)
            for index in 0..<dict.count {
                encoder.writeKey(dict.keyValue(index), from: value.document)
                referenceCopy(FleeceValue(document: value.document, offset: dict.valueOffset(index)), into: encoder)
            }
            encoder.endDictionary()
        }
    }

    @Test func copyingByOffsetsWritesWhatTheValueWalkWrote() async {
        let documents = Gen.int(in: 0...10_000).array(of: 1...60).array(of: 1...6)
        await propertyCheck(count: 300, input: documents) { picks in
            let source = SharedKeys()
            let other = SharedKeys()
            for (number, choices) in picks.enumerated() {
                var builder = Builder(choices: ChoiceSequence(choices))
                let json = number % 3 == 2 ? "[" + builder.value(depth: 1) + "," + builder.object(depth: 1) + "]"
                                           : builder.object(depth: 0)
                // Copied once by the reference walk: a copy keeps 3- and 4-byte integers inline,
                // so the source has wide collections too.
                let parsed = try FleeceDocument(bytes: try JSONConverter.fleece(fromJSON: json, sharedKeys: source),
                                                sharedKeys: source)
                let widening = FleeceEncoder(sharedKeys: source)
                Self.referenceCopy(parsed.root, into: widening)
                let stored = try FleeceDocument(bytes: try widening.finish(), sharedKeys: source)
                for target in [source, other, nil] {
                    let copy = FleeceEncoder(sharedKeys: target)
                    copy.writeValue(stored.root)
                    let reference = FleeceEncoder(sharedKeys: target)
                    Self.referenceCopy(stored.root, into: reference)
                    let bytes = try copy.finish()
                    #expect(bytes == (try reference.finish()), "\(json)")
                    let reread = try FleeceDocument(bytes: bytes, sharedKeys: target)
                    #expect(reread.root.json(canonical: true) == stored.root.json(canonical: true), "\(json)")
                }
            }
        }
    }
}
