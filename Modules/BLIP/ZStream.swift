import CZlib

/// The `z_stream` of a ``DeflateStream`` or ``InflateStream``: allocated at one address (zlib's
/// state points back at it) and set up by one zlib call, an init or a copy.
enum ZStream {
    /// A zeroed `z_stream` that `setUp`, zlib's function `call`, initialises.
    ///
    /// - Throws: `failure` with a message naming `call` and zlib's status (after freeing the
    ///   memory) when `setUp` does not return `Z_OK`.
    static func make(_ call: String, failure: (String) -> BLIPError,
                     _ setUp: (UnsafeMutablePointer<z_stream>) -> Int32) throws -> UnsafeMutablePointer<z_stream> {
        let stream = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
        stream.initialize(to: z_stream())
        let status = setUp(stream)
        guard status == Z_OK else {
            release(stream)
            throw failure("zlib \(call) failed (\(status))")
        }
        return stream
    }

    /// Frees a stream from ``make(_:failure:_:)``, after zlib's `deflateEnd`/`inflateEnd`.
    static func release(_ stream: UnsafeMutablePointer<z_stream>) {
        stream.deinitialize(count: 1)
        stream.deallocate()
    }
}
