import CZlib

extension ZlibStream where Direction == ZlibDirection.Inflating {
    /// The scratch buffer's size: how much is inflated per zlib call.
    static var inflateChunkSize: Int { 16 * 1024 }

    /// A new raw-inflate stream.
    convenience init() throws {
        try self.init("inflateInit2", failure: BLIPError.protocolViolation, end: { inflateEnd($0) }) {
            czlib_inflateInit2($0, -15)
        }
    }

    /// An independent copy of `other`'s state (for the reader's copy-on-write).
    convenience init(copying other: InflateStream) throws {
        try self.init("inflateCopy", failure: BLIPError.protocolViolation, end: { inflateEnd($0) }) {
            inflateCopy($0, other.stream)
        }
    }

    /// Inflates all of `input` (with Z_SYNC_FLUSH) and appends the output to `output`.
    ///
    /// - Parameter limit: the most bytes this call may append; a peer's small frame can inflate
    ///   to far more, so output is produced in chunks and checked as it grows.
    /// - Throws: `BLIPError.protocolViolation` for corrupt deflate data,
    ///   `BLIPError.messageTooLarge` (with `reportedLimit`) when `limit` would be exceeded.
    func inflate(_ input: [UInt8], appendingTo output: inout [UInt8], limit: Int, reportedLimit: Int) throws {
        let chunkSize = Self.inflateChunkSize
        if scratch.isEmpty { scratch = [UInt8](repeating: 0, count: chunkSize) }
        var appended = 0
        let ceiling = output.count + limit
        try input.withUnsafeBytes { inputBytes in
            stream.pointee.next_in = UnsafeMutablePointer(mutating: inputBytes.bindMemory(to: Bytef.self).baseAddress)
            stream.pointee.avail_in = uInt(inputBytes.count)
            defer { stream.pointee.next_in = nil }
            while true {
                let (produced, status, outputFull) = scratch.withUnsafeMutableBytes { chunkBytes in
                    stream.pointee.next_out = chunkBytes.bindMemory(to: Bytef.self).baseAddress
                    stream.pointee.avail_out = uInt(chunkSize)
                    let status = CZlib.inflate(stream, Z_SYNC_FLUSH)
                    let produced = chunkSize - Int(stream.pointee.avail_out)
                    let full = stream.pointee.avail_out == 0
                    stream.pointee.next_out = nil
                    return (produced, status, full)
                }
                switch status {
                case Z_OK, Z_BUF_ERROR:
                    break
                case Z_STREAM_END:
                    throw BLIPError.protocolViolation(
                        "compressed frame ends the deflate stream (a final block); BLIP keeps it open")
                default:
                    let message = stream.pointee.msg.map { String(cString: $0) } ?? "error \(status)"
                    throw BLIPError.protocolViolation("compressed frame cannot be inflated: \(message)")
                }
                appended += produced
                guard appended <= limit else { throw BLIPError.messageTooLarge(limit: reportedLimit) }
                if output.count + produced > output.capacity {
                    // Grown by doubling, but never past what the limit allows: the last
                    // doubling would otherwise reserve up to twice the limit for a bomb.
                    output.reserveCapacity(min(max(output.capacity * 2, output.count + produced), ceiling))
                }
                output += scratch[0..<produced]
                if stream.pointee.avail_in == 0 && !outputFull { return }
                // Z_BUF_ERROR with input left and room for output: zlib cannot progress.
                if status == Z_BUF_ERROR && produced == 0 {
                    throw BLIPError.protocolViolation("compressed frame is truncated or corrupt")
                }
            }
        }
    }
}
