import LiteStorage
import LiteSupport

/// One shared object per database file in the process, found by the file's canonical path
/// (the path the storage layer's write lock uses, so two spellings of one directory share it),
/// and kept only while someone holds it.
final class PerFileRegistry<Value: AnyObject & Sendable>: Sendable {
    private final class WeakBox: Sendable {
        weak let value: Value?
        init(_ value: Value) { self.value = value }
    }
    private let entries = Locked<[String: WeakBox]>([:])
    private let make: @Sendable () -> Value

    init(make: @escaping @Sendable () -> Value) { self.make = make }

    /// The object of the file at `path`, made on first use.
    func value(forPath path: String) -> Value {
        let key = SharedFile.canonicalPath(path)
        return entries.withLock { entries in
            if let existing = entries[key]?.value { return existing }
            entries = entries.filter { $0.value.value != nil }
            let value = make()
            entries[key] = WeakBox(value)
            return value
        }
    }
}
