import BlobStore
import Fleece
import Foundation

/// Writes a document's properties as Fleece, storing blob content on the way.
///
/// Unchanged containers are copied from the stored Fleece as they are; changed dictionaries are
/// written with their keys in byte order, as Couchbase Lite's mutable dictionaries write them.
struct DocumentEncoder {
    let encoder: FleeceEncoder
    /// Where blob content is stored; nil writes blob properties only (for JSON output).
    let blobStore: BlobStore?
    /// Whether a changed dictionary's untouched stored values are written straight from their
    /// Fleece form (false only in tests, to compare with the general path).
    var writesUntouchedValuesDirectly = true

    init(encoder: FleeceEncoder, blobStore: BlobStore?) {
        self.encoder = encoder
        self.blobStore = blobStore
    }

    func encode(_ properties: DictionaryStorage) throws {
        try encodeDictionary(properties, path: "")
    }

    func encode(_ array: ArrayStorage) throws {
        try encodeArray(array, path: "")
    }

    private func encodeDictionary(_ storage: DictionaryStorage, path: String) throws {
        if !storage.isChanged, let source = storage.source {
            encoder.writeValue(source.value)
            return
        }
        let entries = storage.entriesInByteOrder()
        encoder.beginDictionary(reservingCapacity: entries.count)
        for entry in entries {
            // An untouched value is read from the source at its index (a stored dictionary with
            // a repeated key keeps each of its values).
            if let index = entry.untouchedIndex, let (storedKey, stored) = storage.source?.entryValues(at: index) {
                encoder.writeKey(stored: storedKey)
                if writesUntouchedValuesDirectly, Self.canWriteDirectly(stored) {
                    writeDirectly(stored)
                } else {
                    try encodeValue(ValueConversion.value(stored, database: storage.database, mutable: false),
                                    path: path.isEmpty ? entry.key : "\(path).\(entry.key)")
                }
                continue
            }
            guard let value = storage.value(forKey: entry.key) else { continue }
            encoder.writeKey(entry.key)
            try encodeValue(value, path: path.isEmpty ? entry.key : "\(path).\(entry.key)")
        }
        encoder.endDictionary()
    }

    /// Whether ``writeDirectly(_:)`` writes `value` as the general path would after converting
    /// it to a Swift value: not for data (an error there), blobs (stored on the way), or
    /// non-finite numbers (an error).
    private static func canWriteDirectly(_ value: FleeceValue) -> Bool {
        switch value.type {
        case .data: return false
        case .number: return !value.isFloatingPoint || value.double.isFinite
        case .dictionary: return value.dictionary?[BlobKeys.type]?.string != BlobKeys.blobType
        default: return true
        }
    }

    /// Writes a stored value with the encoder calls the general path makes for it
    /// (`ValueConversion.value` then ``encodeValue(_:path:)``), without making Swift objects:
    /// the same bytes, so the same revision IDs.
    private func writeDirectly(_ value: FleeceValue) {
        switch value.type {
        case .null, .undefined: encoder.writeNull()
        case .boolean: encoder.writeBool(value.bool)
        case .number:
            if value.isFloatingPoint {
                encoder.writeDouble(value.double)
            } else if value.isUnsigned, value.uint64 > UInt64(Int.max) {
                encoder.writeUInt(value.uint64)
            } else {
                encoder.writeInt(value.isUnsigned ? Int64(value.uint64) : value.int64)
            }
        // A string's UTF-8 bytes are what `writeString` writes; unchanged containers are copied
        // as stored (as ``encodeDictionary`` and ``encodeArray`` do).
        case .string, .array, .dictionary, .data: encoder.writeValue(value)
        }
    }

    private func encodeArray(_ storage: ArrayStorage, path: String) throws {
        if !storage.isChanged, let source = storage.source {
            encoder.writeValue(source.value)
            return
        }
        let values = storage.values
        encoder.beginArray(reservingCapacity: values.count)
        for (index, value) in values.enumerated() {
            try encodeValue(value, path: "\(path)[\(index)]")
        }
        encoder.endArray()
    }

    private func encodeValue(_ value: Any, path: String) throws {
        switch value {
        case is NSNull: encoder.writeNull()
        case let bool as Bool: encoder.writeBool(bool)
        case let string as String: encoder.writeString(string)
        case let int as Int: encoder.writeInt(Int64(int))
        case let int as Int64: encoder.writeInt(int)
        case let int as Int32: encoder.writeInt(Int64(int))
        case let int as Int16: encoder.writeInt(Int64(int))
        case let int as Int8: encoder.writeInt(Int64(int))
        case let uint as UInt: encoder.writeUInt(UInt64(uint))
        case let uint as UInt64: encoder.writeUInt(uint)
        case let uint as UInt32: encoder.writeUInt(UInt64(uint))
        case let uint as UInt16: encoder.writeUInt(UInt64(uint))
        case let uint as UInt8: encoder.writeUInt(UInt64(uint))
        case let double as Double: try encodeDouble(double, path: path)
        case let float as Float: try encodeDouble(Double(float), path: path, float: float)
        case let number as NSNumber: try encodeNumber(number, path: path)
        case let date as Date: encoder.writeString(ISO8601.string(from: date))
        case let blob as Blob:
            if let blobStore { try blob.install(into: blobStore) }
            encoder.beginDictionary(reservingCapacity: 4)
            let properties = blob.properties
            for key in properties.keys.sorted() {
                encoder.writeKey(key)
                try encodeValue(properties[key] ?? NSNull(), path: "\(path).\(key)")
            }
            encoder.endDictionary()
        case let dictionary as DictionaryObject: try encodeDictionary(dictionary.storage, path: path)
        case let array as ArrayObject: try encodeArray(array.storage, path: path)
        case let dictionary as [String: Any]: try encodeDictionary(MutableDictionaryObject(data: dictionary).storage, path: path)
        case let array as [Any]: try encodeArray(MutableArrayObject(data: array).storage, path: path)
        case is Data:
            throw CouchbaseLiteError(.invalidParameter,
                                     "property \"\(path)\" holds Data; store binary content as a Blob")
        default:
            throw CouchbaseLiteError(.invalidParameter,
                                     "property \"\(path)\" holds a \(type(of: value)), which a document cannot store")
        }
    }

    private func encodeDouble(_ value: Double, path: String, float: Float? = nil) throws {
        guard value.isFinite else {
            throw CouchbaseLiteError(.invalidParameter, "property \"\(path)\" is \(value), which JSON cannot represent")
        }
        if let float { encoder.writeFloat(float) } else { encoder.writeDouble(value) }
    }

    private func encodeNumber(_ number: NSNumber, path: String) throws {
        switch String(cString: number.objCType) {
        case "f": try encodeDouble(number.doubleValue, path: path, float: number.floatValue)
        case "d": try encodeDouble(number.doubleValue, path: path)
        case "Q", "L", "I", "S", "C": encoder.writeUInt(number.uint64Value)
        default: encoder.writeInt(number.int64Value)
        }
    }
}
