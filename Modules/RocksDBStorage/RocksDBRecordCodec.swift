import LiteStorage

/// The value stored under a record key: a small header, the version, then the body.
///
/// `u8 format (1) | u64 sequence | u32 flags | u8 hasExpiration | [i64 expiration] |
/// u32 versionLength | version | body` (integers big-endian).
enum RocksDBRecordCodec {
    static func encode(sequence: UInt64, flags: DocumentFlags, expiration: Int64?,
                       version: [UInt8], body: [UInt8]) -> [UInt8] {
        var bytes: [UInt8] = [1]
        bytes.reserveCapacity(26 + version.count + body.count)
        RocksDBLayout.appendBigEndian(&bytes, sequence)
        RocksDBLayout.appendBigEndian(&bytes, flags.rawValue)
        if let expiration {
            bytes.append(1)
            RocksDBLayout.appendBigEndian(&bytes, expiration)
        } else {
            bytes.append(0)
        }
        RocksDBLayout.appendBigEndian(&bytes, UInt32(version.count))
        bytes += version
        bytes += body
        return bytes
    }

    /// The fields before the version, read without copying the rest.
    struct Header {
        var sequence: UInt64
        var flags: DocumentFlags
        var expiration: Int64?
        var versionRange: Range<Int>
    }

    static func header(_ value: UnsafeRawBufferPointer, path: String) throws -> Header {
        guard value.count >= 18, value[0] == 1 else { throw damaged(path) }
        let sequence: UInt64 = RocksDBLayout.readBigEndian(value, at: 1)
        let flags: UInt32 = RocksDBLayout.readBigEndian(value, at: 9)
        var offset = 14
        var expiration: Int64?
        if value[13] == 1 {
            guard value.count >= 26 else { throw damaged(path) }
            expiration = RocksDBLayout.readBigEndian(value, at: 14)
            offset = 22
        }
        let versionLength = Int(RocksDBLayout.readBigEndian(value, at: offset, as: UInt32.self))
        offset += 4
        guard offset + versionLength <= value.count else { throw damaged(path) }
        return Header(sequence: sequence, flags: DocumentFlags(rawValue: flags), expiration: expiration,
                      versionRange: offset..<offset + versionLength)
    }

    static func record(key: String, _ value: UnsafeRawBufferPointer, content: RecordContent,
                       path: String) throws -> Record {
        let header = try header(value, path: path)
        let bodyStart = header.versionRange.upperBound
        // Rebasing keeps the copies memcpy-fast (a slice would be copied byte by byte).
        let body = content == .all ? [UInt8](UnsafeRawBufferPointer(rebasing: value[bodyStart...])) : []
        let version = [UInt8](UnsafeRawBufferPointer(rebasing: value[header.versionRange]))
        return Record(key: key, version: version, body: body,
                      flags: header.flags, sequence: header.sequence, expiration: header.expiration,
                      bodySize: value.count - bodyStart)
    }

    static func damaged(_ path: String) -> StorageError {
        StorageError(.corruptData, "RocksDB database \"\(path)\" holds a damaged record; restore it from a backup")
    }
}
