import Fleece

/// A document property path (`.collection`, `.address.city`, `.tags[0]`) read straight from a
/// record's lent Fleece body into a ``QueryValue``: keys resolved once against the shared keys,
/// no document object, no reference counting. For scalars only: an array, an object or data
/// is left to the evaluator, which builds those values. A GROUP BY key read this way cost a
/// third of what the evaluator's lookup through a document did.
struct LentPropertyPath {
    /// A dictionary key (its shared-key number, or -1, and its UTF-8 at `keyStart` in a byte
    /// array kept beside the steps) or an array index: plain values, so that walking a record
    /// retains and releases nothing.
    struct Step {
        let isKey: Bool
        let sharedKey: Int
        let keyStart: Int
        let keyCount: Int
        let index: Int
    }

    private let steps: [Step]
    private let bytes: [UInt8]

    /// The path of `expression` when it is a property of the first source with a path; nil otherwise.
    init?(_ expression: CompiledExpression, keys: FleeceKeyTable) {
        var steps: [Step] = []
        var bytes: [UInt8] = []
        guard Self.append(expression, keys: keys, to: &steps, bytes: &bytes) != nil else { return nil }
        self.steps = steps
        self.bytes = bytes
    }

    /// Appends the steps of `expression`'s path (a property of the first source with a path),
    /// keys resolved against `keys`, to `steps` and their bytes to `bytes`; returns where they
    /// start and how many there are, or nil (nothing appended) for any other expression.
    static func append(_ expression: CompiledExpression, keys: FleeceKeyTable, to steps: inout [Step],
                       bytes: inout [UInt8]) -> (start: Int, count: Int)? {
        guard case .property(nil, let components) = expression, !components.isEmpty else { return nil }
        let start = steps.count
        for component in components {
            switch component {
            case .key(let key):
                let resolved = keys.resolve(key)
                steps.append(Step(isKey: true, sharedKey: resolved.shared ?? -1, keyStart: bytes.count,
                                  keyCount: resolved.bytes.count, index: 0))
                bytes += resolved.bytes
            case .index(let index):
                steps.append(Step(isKey: false, sharedKey: -1, keyStart: 0, keyCount: 0, index: index))
            }
        }
        return (start, components.count)
    }

    /// The value `path` leads to under `root` (keys' bytes in `bytes`), or nil when a step
    /// finds nothing.
    static func walk(_ root: FleeceLentValue, _ path: Slice<UnsafeBufferPointer<Step>>,
                     _ bytes: UnsafeRawBufferPointer) -> FleeceLentValue? {
        var value = root
        for step in path {
            let next: FleeceLentValue?
            if step.isKey {
                next = value.value(sharedKey: step.sharedKey < 0 ? nil : step.sharedKey,
                                   keyBytes: UnsafeRawBufferPointer(rebasing: bytes[step.keyStart..<(step.keyStart + step.keyCount)]))
            } else {
                next = value.element(at: step.index)
            }
            guard let next else { return nil }
            value = next
        }
        return value
    }

    /// The value at the path under `root`, as the evaluator reads it; nil when it is an array,
    /// an object or data (the evaluator must read it).
    func value(in root: FleeceLentValue) -> QueryValue? {
        steps.withUnsafeBufferPointer { steps in
            bytes.withUnsafeBytes { bytes in
                guard let value = Self.walk(root, steps[...], bytes) else { return .missing }
                switch value.type {
                case .undefined: return .missing
                case .null: return .null
                case .boolean: return .bool(value.bool)
                case .number:
                    if value.isInteger, !(value.isUnsigned && value.uint64 > UInt64(Int64.max)) { return .int(value.int64) }
                    return .double(value.double)
                case .string: return .string(value.withPayload { String(decoding: $0, as: UTF8.self) })
                case .data, .array, .dictionary: return nil
                }
            }
        }
    }
}

extension LentPropertyPath {
    /// Appends the index key (``IndexKey``) of the value at the path under `root` to `out`, its
    /// string bytes straight from the body (no `QueryValue` or `String` made): what
    /// `IndexKey.append(value(in: root), to: &out)` appends. Returns whether the value is
    /// MISSING, or nil (nothing appended) when it is an array, an object or data.
    func appendIndexKey(in root: FleeceLentValue, to out: inout [UInt8]) -> Bool? {
        steps.withUnsafeBufferPointer { steps in
            bytes.withUnsafeBytes { bytes in
                guard let value = Self.walk(root, steps[...], bytes) else {
                    out.append(1)
                    return true
                }
                switch value.type {
                case .undefined:
                    out.append(1)
                    return true
                case .null: out.append(1)
                case .boolean: out.append(value.bool ? 3 : 2)
                case .number:
                    // As `value(in:)` reads it: an integer within Int64's range, else a double.
                    let integer = value.isInteger && !(value.isUnsigned && value.uint64 > UInt64(Int64.max))
                    IndexKey.appendNumber(integer ? Double(value.int64) : value.double, to: &out)
                case .string:
                    out.append(5)
                    value.withPayload { payload in
                        // Bytes that are not all ASCII go through `String`, which repairs bad UTF-8 as `value(in:)` does.
                        if payload.allSatisfy({ $0 < 0x80 }) {
                            IndexKey.appendString(payload, to: &out)
                        } else {
                            IndexKey.appendString(String(decoding: payload, as: UTF8.self).utf8, to: &out)
                        }
                    }
                case .data, .array, .dictionary: return nil
                }
                return false
            }
        }
    }
}

/// The values of a few property paths read from a lent body, which a row keeps instead of a
/// copy of that body (``QueryRow/indexValues``): for the first source's passing rows and for the
/// documents a join finds.
struct KeptPropertyValues {
    /// The paths, in the form ``IndexCoverage/Values`` looks them up by.
    let paths: [[FleecePath.Component]?]
    private let readers: [LentPropertyPath]

    /// Readers of `paths` (properties of one source, without its alias) resolved against `keys`;
    /// nil when there are no paths.
    init?(_ paths: [[FleecePath.Component]]?, keys: FleeceKeyTable) {
        guard let paths, !paths.isEmpty else { return nil }
        let readers = paths.compactMap { LentPropertyPath(.property(alias: nil, path: $0), keys: keys) }
        guard readers.count == paths.count else { return nil }
        self.paths = paths
        self.readers = readers
    }

    /// The paths' values in a body whose root is `root` (nil: an empty body, every value
    /// MISSING); nil when one of them is an array, an object or data (the row keeps its body).
    func values(in root: FleeceLentValue?) -> IndexCoverage.Values? {
        guard let root else { return IndexCoverage.Values(paths: paths, values: Array(repeating: .missing, count: readers.count)) }
        var values: [QueryValue] = []
        values.reserveCapacity(readers.count)
        for reader in readers {
            guard let value = reader.value(in: root) else { return nil }
            values.append(value)
        }
        return IndexCoverage.Values(paths: paths, values: values)
    }
}
