/// What ``JSONParser`` writes parsed values into: a ``FleeceEncoder``, or ``JSONValidationSink``
/// when only the syntax needs checking.
protocol JSONSink: AnyObject {
    var error: FleeceError? { get }
    @discardableResult func writeStringBytes(_ bytes: UnsafeRawBufferPointer) -> Int?
    func writeKeyBytes(_ bytes: UnsafeRawBufferPointer)
    func writeBool(_ value: Bool)
    func writeNull()
    func writeInt(_ value: Int64)
    func writeUInt(_ value: UInt64)
    func writeDouble(_ value: Double)
    func beginDictionary(reservingCapacity capacity: Int)
    func endDictionary()
    func beginArray(reservingCapacity capacity: Int)
    func endArray()
}

extension JSONSink {
    func beginDictionary() { beginDictionary(reservingCapacity: 0) }
    func beginArray() { beginArray(reservingCapacity: 0) }
}

extension FleeceEncoder: JSONSink {}

/// A sink that keeps nothing: parsing into it checks JSON syntax (and the nesting limit) at a
/// fraction of the cost of encoding.
final class JSONValidationSink: JSONSink {
    private(set) var error: FleeceError?

    @discardableResult func writeStringBytes(_ bytes: UnsafeRawBufferPointer) -> Int? { nil }
    func writeKeyBytes(_ bytes: UnsafeRawBufferPointer) {}
    func writeBool(_ value: Bool) {}
    func writeNull() {}
    func writeInt(_ value: Int64) {}
    func writeUInt(_ value: UInt64) {}
    func writeDouble(_ value: Double) {
        if !value.isFinite, error == nil {
            error = FleeceError(.invalidData, "JSON number \(value) cannot be stored")
        }
    }
    func beginDictionary(reservingCapacity capacity: Int) {}
    func endDictionary() {}
    func beginArray(reservingCapacity capacity: Int) {}
    func endArray() {}
}
