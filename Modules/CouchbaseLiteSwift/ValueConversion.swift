import Fleece
import Foundation

/// Conversions between the values a document holds and what the typed accessors return,
/// following Couchbase Lite 2.x: a type mismatch gives nil (objects) or 0/false (scalars).
enum ValueConversion {
    /// The Swift value of a Fleece value: containers become `DictionaryObject`/`ArrayObject`
    /// (mutable ones when `mutable`), blob dictionaries become `Blob`s.
    static func value(_ fleece: FleeceValue, database: Database?, mutable: Bool) -> Any {
        switch fleece.type {
        case .null, .undefined: return NSNull()
        case .boolean: return fleece.bool
        case .number:
            if fleece.isFloatingPoint { return fleece.double }
            if fleece.isUnsigned {
                let value = fleece.uint64
                return value <= UInt64(Int.max) ? Int(value) as Any : value as Any
            }
            return Int(fleece.int64)
        case .string: return fleece.string ?? ""
        case .data: return Data(fleece.data ?? [])
        case .array:
            guard let array = fleece.array else { return NSNull() }
            let storage = ArrayStorage(source: array, database: database, isMutable: mutable)
            return mutable ? MutableArrayObject(storage: storage) : ArrayObject(storage: storage)
        case .dictionary:
            guard let dict = fleece.dictionary else { return NSNull() }
            if dict[BlobKeys.type]?.string == BlobKeys.blobType {
                return Blob(properties: dict, database: database)
            }
            let storage = DictionaryStorage(source: dict, database: database, isMutable: mutable)
            return mutable ? MutableDictionaryObject(storage: storage) : DictionaryObject(storage: storage)
        }
    }

    /// Normalises a value given to a setter: plain dictionaries and arrays become mutable
    /// containers, immutable containers are copied, `nil` becomes `NSNull`.
    static func normalise(_ value: Any?) -> Any {
        guard let value else { return NSNull() }
        switch value {
        case let dictionary as MutableDictionaryObject: return dictionary
        case let dictionary as DictionaryObject: return dictionary.toMutable()
        case let array as MutableArrayObject: return array
        case let array as ArrayObject: return array.toMutable()
        case let dictionary as [String: Any]: return MutableDictionaryObject(data: dictionary)
        case let array as [Any]: return MutableArrayObject(data: array)
        default: return value
        }
    }

    // The typed getters of arrays, dictionaries (documents, results) and fragments: one
    // conversion a result type, so each getter is a single call with the value it reads.

    static func string(_ value: Any?) -> String? { value as? String }

    static func number(_ value: Any?) -> NSNumber? {
        switch value {
        case let number as NSNumber where !(value is Bool): return number
        case let int as Int: return NSNumber(value: int)
        case let int as Int64: return NSNumber(value: int)
        case let uint as UInt64: return NSNumber(value: uint)
        case let double as Double: return NSNumber(value: double)
        case let float as Float: return NSNumber(value: float)
        case let bool as Bool: return NSNumber(value: bool)
        default: return nil
        }
    }

    static func int64(_ value: Any?) -> Int64 {
        switch value {
        case let int as Int: return Int64(int)
        case let int as Int64: return int
        case let int as Int32: return Int64(int)
        case let uint as UInt64: return Int64(truncatingIfNeeded: uint)
        case let uint as UInt: return Int64(truncatingIfNeeded: uint)
        case let double as Double: return double.isFinite ? Int64(exactly: double.rounded(.towardZero)) ?? 0 : 0
        case let float as Float: return float.isFinite ? Int64(exactly: Double(float).rounded(.towardZero)) ?? 0 : 0
        case let bool as Bool: return bool ? 1 : 0
        case let number as NSNumber: return number.int64Value
        default: return 0
        }
    }

    /// Truncated to the platform's `Int` width, as 2.x's `int` getters do.
    static func int(_ value: Any?) -> Int { Int(truncatingIfNeeded: int64(value)) }

    static func float(_ value: Any?) -> Float { Float(double(value)) }

    static func double(_ value: Any?) -> Double {
        switch value {
        case let double as Double: return double
        case let float as Float: return Double(float)
        case let int as Int: return Double(int)
        case let int as Int64: return Double(int)
        case let uint as UInt64: return Double(uint)
        case let bool as Bool: return bool ? 1 : 0
        case let number as NSNumber: return number.doubleValue
        default: return 0
        }
    }

    /// True unless the value is missing, null, false or zero (Fleece's boolean coercion).
    static func boolean(_ value: Any?) -> Bool {
        switch value {
        case nil, is NSNull: return false
        case let bool as Bool: return bool
        case is Int, is Int64, is UInt64, is Double, is Float, is NSNumber: return double(value) != 0
        default: return true
        }
    }

    static func date(_ value: Any?) -> Date? {
        switch value {
        case let date as Date: return date
        case let string as String: return ISO8601.date(from: string)
        default: return nil
        }
    }

    static func blob(_ value: Any?) -> Blob? {
        switch value {
        case let blob as Blob: return blob
        // A 1.x / Sync Gateway `_attachments` entry: a dictionary with a digest but no @type.
        case let dictionary as DictionaryObject: return Blob(legacyAttachment: dictionary)
        default: return nil
        }
    }

    /// Plain Swift values (for `toDictionary()` / `toArray()`): containers become dictionaries
    /// and arrays, blobs their properties.
    static func plain(_ value: Any) -> Any {
        switch value {
        case let dictionary as DictionaryObject: return dictionary.toDictionary()
        case let array as ArrayObject: return array.toArray()
        case let blob as Blob: return blob
        default: return value
        }
    }

    /// Deep equality of two document values (numbers compare by value).
    static func equal(_ a: Any?, _ b: Any?) -> Bool {
        switch (a, b) {
        case (nil, nil): return true
        case (is NSNull, is NSNull): return true
        case let (x as String, y as String): return x == y
        case let (x as Bool, y as Bool): return x == y
        case let (x as DictionaryObject, y as DictionaryObject): return x == y
        case let (x as ArrayObject, y as ArrayObject): return x == y
        case let (x as Blob, y as Blob): return x == y
        case let (x as Date, y as Date): return x == y
        case let (x as Data, y as Data): return x == y
        default:
            guard let x = a, let y = b, !(x is Bool), !(y is Bool),
                  let left = number(x), let right = number(y) else { return false }
            return left == right
        }
    }
}

/// Keys of a blob dictionary in a document body.
enum BlobKeys {
    static let type = "@type"
    static let blobType = "blob"
    static let digest = "digest"
    static let length = "length"
    static let contentType = "content_type"
    /// The spelling of pre-GA 2.0 databases.
    static let legacyContentType = "content-type"
}

/// ISO-8601 dates as Couchbase Lite stores them (`2024-05-01T12:00:00.000Z`).
enum ISO8601 {
    static func string(from date: Date) -> String {
        formatter(fractional: true).string(from: date)
    }

    static func date(from string: String) -> Date? {
        formatter(fractional: true).date(from: string) ?? formatter(fractional: false).date(from: string)
    }

    private static func formatter(fractional: Bool) -> ISO8601DateFormatter {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = fractional ? [.withInternetDateTime, .withFractionalSeconds] : [.withInternetDateTime]
        return formatter
    }
}
