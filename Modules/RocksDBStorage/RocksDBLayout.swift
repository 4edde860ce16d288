import LiteStorage

/// How records, indexes and counters are laid out in RocksDB's single default column family:
/// every key starts with a one-byte tag, and per-store keys then with the store's 4-byte ID.
///
/// | tag | rest of the key | value |
/// |---|---|---|
/// | `01` | `format` | ``formatMarker`` (written when the folder is created) |
/// | `02` | kind byte (`1` key store, `2` byte-key store) + name | store ID, u32 big-endian |
/// | `03` | — | next store ID, u32 big-endian |
/// | `10` | ID + document ID (UTF-8) | the record (``RocksDBRecordCodec``) |
/// | `11` | ID + sequence (u64 BE) | document ID |
/// | `12` | ID + expiration (i64 biased to u64, BE) + document ID | empty |
/// | `13` | ID | last sequence (u64 BE) + purge count (u64 BE) |
/// | `20` | ID + byte key | value |
///
/// Big-endian numbers sort numerically under RocksDB's bytewise comparator, so sequence and
/// expiration order come for free; IDs are never reused, so a deleted store leaves no ghosts.
enum RocksDBLayout {
    static let formatKey: [UInt8] = [0x01] + Array("format".utf8)
    static let formatMarker: [UInt8] = Array("CouchbaseLiteSwift RocksDB layout 1".utf8)
    static let nextStoreIDKey: [UInt8] = [0x03]

    static let recordTag: UInt8 = 0x10
    static let sequenceTag: UInt8 = 0x11
    static let expirationTag: UInt8 = 0x12
    static let metaTag: UInt8 = 0x13
    static let byteKeyTag: UInt8 = 0x20

    enum Kind: UInt8, CustomStringConvertible {
        case keyStore = 1
        case byteKeyStore = 2

        var description: String { self == .keyStore ? "key store" : "byte-key store" }
    }

    static func catalogKey(_ kind: Kind, _ name: String) -> [UInt8] {
        [0x02, kind.rawValue] + Array(name.utf8)
    }

    static func catalogPrefix(_ kind: Kind) -> [UInt8] { [0x02, kind.rawValue] }

    static func prefix(_ tag: UInt8, _ store: UInt32) -> [UInt8] {
        var bytes: [UInt8] = [tag]
        bytes.reserveCapacity(48)
        appendBigEndian(&bytes, store)
        return bytes
    }

    // Keys are built in the prefix's array (it reserves room): one allocation per key.
    static func recordKey(_ store: UInt32, _ key: String) -> [UInt8] {
        var bytes = prefix(recordTag, store)
        bytes.append(contentsOf: key.utf8)
        return bytes
    }

    static func sequenceKey(_ store: UInt32, _ sequence: UInt64) -> [UInt8] {
        var bytes = prefix(sequenceTag, store)
        appendBigEndian(&bytes, sequence)
        return bytes
    }

    static func expirationKey(_ store: UInt32, _ expiration: Int64, _ key: String) -> [UInt8] {
        var bytes = prefix(expirationTag, store)
        appendBigEndian(&bytes, biased(expiration))
        bytes.append(contentsOf: key.utf8)
        return bytes
    }

    static func metaKey(_ store: UInt32) -> [UInt8] { prefix(metaTag, store) }

    static func byteKey(_ store: UInt32, _ key: [UInt8]) -> [UInt8] {
        var bytes = prefix(byteKeyTag, store)
        bytes.append(contentsOf: key)
        return bytes
    }

    /// Flips the sign bit so that signed order becomes unsigned byte order.
    static func biased(_ value: Int64) -> UInt64 { UInt64(bitPattern: value) ^ (1 << 63) }
    static func unbiased(_ value: UInt64) -> Int64 { Int64(bitPattern: value ^ (1 << 63)) }

    static func appendBigEndian<T: FixedWidthInteger>(_ bytes: inout [UInt8], _ value: T) {
        var big = value.bigEndian
        withUnsafeBytes(of: &big) { bytes.append(contentsOf: $0) }
    }

    static func readBigEndian<T: FixedWidthInteger>(_ bytes: UnsafeRawBufferPointer, at offset: Int,
                                                    as type: T.Type = T.self) -> T {
        var value: T = 0
        for index in 0..<MemoryLayout<T>.size { value = value << 8 | T(bytes[offset + index]) }
        return value
    }
}
