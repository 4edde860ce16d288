import CZlib

/// One zlib raw stream of a BLIP direction: ``InflateStream`` (decompressing) or
/// ``DeflateStream`` (compressing), window bits −15 (raw, no zlib header).
///
/// A class because zlib's state points back at its `z_stream` (`deflateStateCheck` compares
/// `strm->state->strm == strm`), so the stream must stay at one address. Not thread-safe: one
/// owner at a time (the frame reader or writer, which copies it before sharing would mutate it).
/// One generic class for both directions, so that the memory, the clean-up and the promise
/// below are written once; each direction adds its calls in a constrained extension.
final class ZlibStream<Direction>: @unchecked Sendable {
    // @unchecked: used by one owner at a time; BLIPFrameReader and BLIPFrameWriter copy it
    // (inflateCopy/deflateCopy) before mutating when the reference is shared.
    let stream: UnsafeMutablePointer<z_stream>
    /// zlib's `inflateEnd` or `deflateEnd`.
    private let end: (UnsafeMutablePointer<z_stream>) -> Int32
    /// Inflating only: output is inflated into this and appended from it; kept between frames
    /// (a fresh zeroed 16 KiB buffer per frame showed in profiles of pushes of small documents).
    var scratch: [UInt8] = []

    /// Allocates a zeroed `z_stream` at a fixed address and lets `setUp`, zlib's function
    /// `call` (an init or a copy), initialise it; `end` is the matching clean-up.
    ///
    /// - Throws: `failure` with a message naming `call` and zlib's status (after freeing the
    ///   memory) when `setUp` does not return `Z_OK`.
    init(_ call: String, failure: (String) -> BLIPError, end: @escaping (UnsafeMutablePointer<z_stream>) -> Int32,
         _ setUp: (UnsafeMutablePointer<z_stream>) -> Int32) throws {
        let stream = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
        stream.initialize(to: z_stream())
        let status = setUp(stream)
        guard status == Z_OK else {
            stream.deinitialize(count: 1)
            stream.deallocate()
            throw failure("zlib \(call) failed (\(status))")
        }
        self.stream = stream
        self.end = end
    }

    deinit {
        _ = end(stream)
        stream.deinitialize(count: 1)
        stream.deallocate()
    }
}

extension ZlibStream {
    /// The stream a value type holds in `stream`, made its own first (copy-on-write): the same
    /// stream when no other copy of the holder shares it, else `copy` of it, or `make`'s new
    /// one when there is none yet; stored back in `stream`.
    @inline(__always)
    static func unique(_ stream: inout ZlibStream?, copy: (ZlibStream) throws -> ZlibStream,
                       make: () throws -> ZlibStream) throws -> ZlibStream {
        // Checked before binding the stream to a local, which would count as a second
        // reference and copy the whole zlib state (an inflater's 32 KiB window, a deflater's
        // hundreds of KiB) on every frame.
        if isKnownUniquelyReferenced(&stream), let existing = stream { return existing }
        let unique = try stream.map(copy) ?? make()
        stream = unique
        return unique
    }
}

/// The tags of ``ZlibStream``.
enum ZlibDirection {
    /// Decompressing.
    enum Inflating {}
    /// Compressing.
    enum Deflating {}
}

/// A raw-inflate stream (the decompressing half of a BLIP direction).
typealias InflateStream = ZlibStream<ZlibDirection.Inflating>

/// A raw-deflate stream (the compressing half of a BLIP direction), with LiteCore 2.8's
/// parameters: memLevel 9, default strategy (LiteCore/Support/Codec.cc), level 6
/// (BLIPConnection.cc `kDefaultCompressionLevel`).
typealias DeflateStream = ZlibStream<ZlibDirection.Deflating>
