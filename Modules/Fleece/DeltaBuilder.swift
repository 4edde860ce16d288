/// Builds a JSON delta (see ``JSONDelta``) while walking two values side by side. Enclosing
/// `{` and keys are written lazily, only once a change is found below them.
struct DeltaBuilder {
    /// One level of the path to the value being compared; `open` once its `{` is written.
    final class PathLevel {
        var parent: PathLevel?
        var open = false
        var key = ""
        init(parent: PathLevel?) { self.parent = parent }
    }

    var json = JSONWriter(canonical: false)
    let compatible: Bool
    /// Whether the next item at each open level needs a comma before it.
    private var needsComma: [Bool] = [false]

    init(compatible: Bool) { self.compatible = compatible }

    private mutating func separator() {
        if needsComma[needsComma.count - 1] { json.out.append(UInt8(ascii: ",")) }
        needsComma[needsComma.count - 1] = true
    }

    private mutating func begin(_ bracket: UInt8) {
        separator()
        json.out.append(bracket)
        needsComma.append(false)
    }

    private mutating func end(_ bracket: UInt8) {
        json.out.append(bracket)
        needsComma.removeLast()
    }

    private mutating func value(_ value: FleeceValue) {
        separator()
        json.write(value)
    }

    private mutating func int(_ value: Int64) {
        separator()
        json.writeSigned(value)
    }

    private mutating func string(_ text: String) {
        separator()
        var text = text
        text.withUTF8 { json.writeString(UnsafeRawBufferPointer($0)) }
    }

    /// Writes the path down to `level`: each unopened `{` and each key not yet written. A
    /// level's link to its parent is dropped once written, so it is written only once.
    private mutating func writePath(_ level: PathLevel?) {
        guard let level else { return }
        writePath(level.parent)
        level.parent = nil
        if !level.open {
            begin(UInt8(ascii: "{"))
            level.open = true
        }
        separator()
        var key = level.key
        key.withUTF8 { json.writeString(UnsafeRawBufferPointer($0)) }
        json.out.append(UInt8(ascii: ":"))
        needsComma[needsComma.count - 1] = false
    }

    /// Writes the delta from `old` to `new` under `path`; false when there is no change.
    mutating func write(_ old: FleeceValue?, _ new: FleeceValue?, path: PathLevel?) -> Bool {
        if old == nil && new == nil { return false }
        if let old {
            guard let new else {
                writePath(path)
                begin(UInt8(ascii: "["))
                if compatible { value(old); int(0); int(0) }
                end(UInt8(ascii: "]"))
                return true
            }
            if old.type == new.type {
                if let oldDict = old.dictionary, let newDict = new.dictionary {
                    let level = PathLevel(parent: path)
                    var oldKeysSeen = 0
                    for (key, newValue) in newDict {
                        let oldValue = oldDict[key]
                        if oldValue != nil { oldKeysSeen += 1 }
                        level.key = key
                        _ = write(oldValue, newValue, path: level)
                    }
                    if oldKeysSeen < oldDict.count {
                        for (key, oldValue) in oldDict where newDict[key] == nil {
                            level.key = key
                            _ = write(oldValue, nil, path: level)
                        }
                    }
                    guard level.open else { return false }
                    end(UInt8(ascii: "}"))
                    return true
                }
                if let oldArray = old.array, let newArray = new.array {
                    let common = min(oldArray.count, newArray.count)
                    if common > 0 {
                        let level = PathLevel(parent: path)
                        for index in 0..<common {
                            level.key = String(index)
                            _ = write(oldArray.item(index), newArray.item(index), path: level)
                        }
                        if oldArray.count != newArray.count {
                            level.key = "\(common)-"
                            writePath(level)
                            begin(UInt8(ascii: "["))
                            for index in common..<newArray.count { value(newArray.item(index)) }
                            end(UInt8(ascii: "]"))
                        }
                        guard level.open else { return false }
                        end(UInt8(ascii: "}"))
                        return true
                    } else if oldArray.count == 0 && newArray.count == 0 {
                        return false
                    }
                } else if old.isEqual(to: new) {
                    return false
                } else if old.type == .string, !compatible,
                          let patch = old.withPayload({ a in new.withPayload { b in StringPatch.create(from: a, to: b) } }) {
                    writePath(path)
                    begin(UInt8(ascii: "["))
                    string(patch)
                    int(0)
                    int(2)
                    end(UInt8(ascii: "]"))
                    return true
                }
            }
        }
        guard let new else { return false }
        writePath(path)
        if new.tag < 6 && path != nil && !compatible {
            value(new)
        } else {
            begin(UInt8(ascii: "["))
            if compatible, let old { value(old) }
            value(new)
            end(UInt8(ascii: "]"))
        }
        return true
    }
}
