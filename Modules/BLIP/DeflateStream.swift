import CZlib

/// One zlib raw-deflate stream (the compressing half of a BLIP direction), with LiteCore 2.8's
/// parameters: window bits −15 (raw, no zlib header), memLevel 9, default strategy
/// (LiteCore/Support/Codec.cc), level 6 (BLIPConnection.cc `kDefaultCompressionLevel`).
///
/// A class because zlib's state points back at its `z_stream` (`deflateStateCheck` compares
/// `strm->state->strm == strm`), so the stream must stay at one address. Not thread-safe: one
/// owner at a time (the frame writer, which copies it before sharing would mutate it).
final class DeflateStream: @unchecked Sendable {
    // @unchecked: used by one owner at a time; BLIPFrameWriter copies it (deflateCopy) before
    // mutating when the reference is shared.
    private let stream: UnsafeMutablePointer<z_stream>

    init(level: Int32) throws {
        stream = try ZStream.make("deflateInit2", failure: BLIPError.invalidMessage) {
            czlib_deflateInit2($0, level, -15, 9)
        }
    }

    /// An independent copy of `other`'s state (for the writer's copy-on-write).
    init(copying other: DeflateStream) throws {
        stream = try ZStream.make("deflateCopy", failure: BLIPError.invalidMessage) { deflateCopy($0, other.stream) }
    }

    deinit {
        deflateEnd(stream)
        ZStream.release(stream)
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
