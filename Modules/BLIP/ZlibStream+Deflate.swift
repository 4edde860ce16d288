import CZlib

extension ZlibStream where Direction == ZlibDirection.Deflating {
    /// A new raw-deflate stream at compression `level`.
    convenience init(level: Int32) throws {
        try self.init("deflateInit2", failure: BLIPError.invalidMessage, end: { deflateEnd($0) }) {
            czlib_deflateInit2($0, level, -15, 9)
        }
    }

    /// An independent copy of `other`'s state (for the writer's copy-on-write).
    convenience init(copying other: DeflateStream) throws {
        try self.init("deflateCopy", failure: BLIPError.invalidMessage, end: { deflateEnd($0) }) {
            deflateCopy($0, other.stream)
        }
    }

    /// zlib's `deflateBound`: the most output `count` input bytes can produce.
    func bound(_ count: Int) -> Int {
        Int(deflateBound(stream, uLong(count)))
    }

    /// Bytes deflate holds that did not fit the last output buffer.
    var pendingBytes: Int {
        var bytes: UInt32 = 0
        var bits: Int32 = 0
        guard deflatePending(stream, &bytes, &bits) == Z_OK else { return 0 }
        return Int(bytes) + (bits > 0 ? 1 : 0)
    }

    /// One `deflate()` call.
    ///
    /// - Returns: how many input bytes were consumed and output bytes produced, and zlib's status.
    func deflate(_ input: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer,
                 flush: Int32) -> (consumed: Int, produced: Int, status: Int32) {
        // zlib reads `next_in` only; its header declares it non-const.
        stream.pointee.next_in = input.isEmpty
            ? nil : UnsafeMutablePointer(mutating: input.bindMemory(to: Bytef.self).baseAddress)
        stream.pointee.avail_in = uInt(input.count)
        stream.pointee.next_out = output.bindMemory(to: Bytef.self).baseAddress
        stream.pointee.avail_out = uInt(output.count)
        let status = CZlib.deflate(stream, flush)
        let consumed = input.count - Int(stream.pointee.avail_in)
        let produced = output.count - Int(stream.pointee.avail_out)
        stream.pointee.next_in = nil
        stream.pointee.next_out = nil
        return (consumed, produced, status)
    }
}
