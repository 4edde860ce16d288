import CZlib
import TestSupport

/// BLIP frames made by hand: `varint(number) varint(flags) payload CRC-32`, where the CRC runs
/// over every payload byte this side sent (uncompressed), frame after frame.
struct HandMadeBLIP {
    private(set) var checksum: UInt32 = 0

    static func varint(_ value: UInt64) -> [UInt8] {
        var bytes: [UInt8] = []
        var rest = value
        while rest >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: rest) | 0x80)
            rest >>= 7
        }
        bytes.append(UInt8(rest))
        return bytes
    }

    /// `varint(length)` + NUL-terminated keys and values.
    static func properties(_ pairs: [(String, String)]) -> [UInt8] {
        var block: [UInt8] = []
        for (key, value) in pairs { block += Array(key.utf8) + [0] + Array(value.utf8) + [0] }
        return varint(UInt64(block.count)) + block
    }

    /// A frame of an uncompressed message; `flags` as the spec numbers them (type in the low
    /// bits, 0x40 more coming).
    mutating func frame(number: UInt64, flags: UInt8, payload: [UInt8]) -> [UInt8] {
        checksum = UInt32(truncatingIfNeeded: payload.withUnsafeBufferPointer {
            crc32(uLong(checksum), $0.baseAddress, uInt($0.count))
        })
        return Self.varint(number) + Self.varint(UInt64(flags)) + payload
            + [UInt8(checksum >> 24), UInt8(truncatingIfNeeded: checksum >> 16),
               UInt8(truncatingIfNeeded: checksum >> 8), UInt8(truncatingIfNeeded: checksum)]
    }

    /// A compressed frame (flag 0x08) of `zeros` zero bytes after `prefix`: raw deflate with a
    /// sync flush, its final `00 00 FF FF` not sent (as BLIP does). 200 MB of zeros deflate to
    /// about 200 KB.
    mutating func compressedFrame(number: UInt64, prefix: [UInt8], zeros: Int) throws -> [UInt8] {
        var stream = z_stream()
        guard czlib_deflateInit2(&stream, 9, -15, 9) == Z_OK else { throw RawSocket.Failure(description: "deflateInit2") }
        defer { deflateEnd(&stream) }
        var output: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        let block = [UInt8](repeating: 0, count: 1 << 20)
        func deflateAll(_ input: [UInt8], flush: Int32) {
            input.withUnsafeBufferPointer { inputBytes in
                stream.next_in = UnsafeMutablePointer(mutating: inputBytes.baseAddress)
                stream.avail_in = uInt(inputBytes.count)
                repeat {
                    chunk.withUnsafeMutableBufferPointer { out in
                        stream.next_out = out.baseAddress
                        stream.avail_out = uInt(out.count)
                        _ = deflate(&stream, flush)
                        output += out[0..<(out.count - Int(stream.avail_out))]
                    }
                } while stream.avail_out == 0 || stream.avail_in > 0
            }
        }
        deflateAll(prefix, flush: Z_NO_FLUSH)
        var remaining = zeros
        while remaining > 0 {
            let count = min(remaining, block.count)
            deflateAll(Array(block[0..<count]), flush: Z_NO_FLUSH)
            remaining -= count
        }
        deflateAll([], flush: Z_SYNC_FLUSH)
        guard output.suffix(4) == [0, 0, 0xFF, 0xFF] else { throw RawSocket.Failure(description: "no sync flush marker") }
        output.removeLast(4)
        // The checksum covers the uncompressed bytes.
        checksum = UInt32(truncatingIfNeeded: prefix.withUnsafeBufferPointer {
            crc32(uLong(checksum), $0.baseAddress, uInt($0.count))
        })
        remaining = zeros
        while remaining > 0 {
            let count = min(remaining, block.count)
            checksum = UInt32(truncatingIfNeeded: block.withUnsafeBufferPointer {
                crc32(uLong(checksum), $0.baseAddress, uInt(count))
            })
            remaining -= count
        }
        return Self.varint(number) + Self.varint(0x08) + output
            + [UInt8(checksum >> 24), UInt8(truncatingIfNeeded: checksum >> 16),
               UInt8(truncatingIfNeeded: checksum >> 8), UInt8(truncatingIfNeeded: checksum)]
    }
}
