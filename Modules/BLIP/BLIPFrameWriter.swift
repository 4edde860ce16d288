import CZlib

/// Cuts outgoing messages into frames for one direction of a connection: the running checksum
/// and the deflate stream are per direction, so frames must be written in the order they are
/// sent, by one writer.
///
/// A frame is `varint(number)` + flags byte + payload chunk + big-endian CRC32, where the CRC is
/// a running zlib CRC32 over the uncompressed payload bytes of every frame written so far
/// (starting at `crc32(0)`). Compressed frames carry the deflate output of their chunk, ended
/// with a sync flush whose trailing `00 00 FF FF` is dropped (the reader puts it back).
///
/// The chunking follows LiteCore 2.8 (`MessageOut::nextFrameToSend`, `Deflater::_writeAndFlush`)
/// call for call, so that frames are byte-identical to a real 2.8 peer's:
///
/// ```swift
/// var writer = BLIPFrameWriter()
/// var outgoing = try BLIPOutgoingMessage(message)
/// while outgoing.hasMoreFrames {
///     try await transport.send(writer.nextFrame(of: &outgoing))
/// }
/// ```
///
/// Copies of a writer are independent (the deflate state is copied on write).
package struct BLIPFrameWriter: Sendable {
    /// LiteCore's `kDefaultFrameSize`: used for a normal message while an urgent one waits.
    package static let defaultFrameSize = 4096
    /// LiteCore's `kBigFrameSize`: every other frame.
    package static let bigFrameSize = 16384

    // From Deflater::_writeAndFlush: leave room for a flush, and stop filling a nearly full frame.
    private static let headroomForFlush = 12
    private static let stopAtOutputSize = 100
    // From MessageOut::nextFrameToSend: keep writing pieces into a frame while this much is free.
    private static let minimumRoomForNextPiece = 1024
    private static let checksumSize = 4
    // Room beyond zlib's deflateBound for a sync flush's empty block (finishFlush grows the
    // buffer should zlib still need more).
    private static let flushSlack = 16

    private let compressionLevel: Int32
    private var deflater: DeflateStream?
    /// The running CRC32 of every uncompressed payload byte written so far.
    package private(set) var checksum: UInt32 = 0

    /// - Parameter compressionLevel: zlib level for compressed messages; LiteCore uses 6.
    package init(compressionLevel: Int32 = 6) {
        self.compressionLevel = compressionLevel
    }

    /// Writes the next frame of `message` and advances it.
    ///
    /// - Parameter maxFrameSize: the frame's size budget, header and checksum included (LiteCore:
    ///   ``bigFrameSize``, or ``defaultFrameSize`` for a normal message with urgent ones waiting).
    ///   A compressed frame can exceed it by a few bytes in the rare case zlib needs more room
    ///   to finish its flush (LiteCore throws there instead).
    /// - Throws: `BLIPError.invalidMessage` when the message has no frames left or zlib fails.
    package mutating func nextFrame(of message: inout BLIPOutgoingMessage,
                                    maxFrameSize: Int = bigFrameSize) throws -> [UInt8] {
        guard message.hasMoreFrames else {
            throw BLIPError.invalidMessage("message #\(message.number) has no frames left to send")
        }
        var header: [UInt8] = []
        BLIPVarint.append(message.number, to: &header)
        header.append(0)  // the flags, known once we know whether more frames follow
        let headerLength = header.count

        let capacity = max(maxFrameSize - headerLength - Self.checksumSize, 1)
        let compressed = message.flags.contains(.compressed)
        // Most messages (replies, revisions) need far less than a frame: the buffer is sized to
        // what their rest can take, deflated or not. The cut is the same: with one piece left,
        // zlib gets it whole with a sync flush whenever the rest's bound fits, whichever the
        // buffer; a bigger or streamed message gets the whole frame, as before.
        var bufferSize = capacity
        if let rest = message.remainingAsOnePiece {
            bufferSize = min(capacity, compressed ? try uniqueDeflater().bound(rest) + Self.flushSlack : rest)
        }
        var output = [UInt8](repeating: 0, count: max(bufferSize, 1))
        var outputLength = 0
        repeat {
            let piece: Range<Int>
            do {
                piece = try message.nextSegment()
            } catch {
                throw error as? BLIPError ?? .invalidMessage("reading the body of message #\(message.number) failed: \(error)")
            }
            if piece.isEmpty { break }
            // Read after nextSegment: a body source replaces the payload with its next piece.
            let payload = message.payload
            let consumed: Int
            if compressed {
                consumed = try deflateAndFlush(payload, piece, into: &output, length: &outputLength)
            } else {
                consumed = min(piece.count, capacity - outputLength)
                output.replaceSubrange(outputLength..<outputLength + consumed,
                                       with: payload[piece.lowerBound..<piece.lowerBound + consumed])
                outputLength += consumed
            }
            updateChecksum(payload, piece.lowerBound..<piece.lowerBound + consumed)
            message.position += consumed
        } while capacity - outputLength >= Self.minimumRoomForNextPiece

        if compressed && outputLength > 0 {
            try finishFlush(into: &output, length: &outputLength)
            // A sync flush always ends with the empty stored block 00 00 FF FF; the reader
            // re-appends it, so it is not sent.
            guard outputLength >= 4, output[outputLength - 4..<outputLength].elementsEqual([0, 0, 0xFF, 0xFF]) else {
                throw BLIPError.invalidMessage("zlib did not end a sync flush with 00 00 FF FF")
            }
            outputLength -= 4
        }
        var frame = header
        frame.reserveCapacity(headerLength + outputLength + Self.checksumSize)
        frame += output[0..<outputLength]
        withUnsafeBytes(of: checksum.bigEndian) { frame += $0 }

        var flags = message.flags
        if message.hasMoreFrames { flags.insert(.moreComing) }
        // A compressed frame with no data (a streamed body's final empty read) goes out
        // uncompressed: LiteCore's reader would re-append 00 00 FF FF to it and lose its
        // inflate stream's sync (LiteCore itself sends it flagged compressed).
        if outputLength == 0 { flags.remove(.compressed) }
        frame[headerLength - 1] = flags.rawValue
        let sent = UInt64(frame.count - headerLength)
        message.bytesSent += sent
        message.unackedBytes += sent
        return frame
    }

    /// All frames of one message, written one after another (no other message in between).
    ///
    /// - Throws: `BLIPError.invalidMessage` when the properties cannot be encoded.
    package mutating func frames(for message: BLIPMessage, maxFrameSize: Int = bigFrameSize,
                                 streamingBody: Bool = false) throws -> [[UInt8]] {
        var outgoing = try BLIPOutgoingMessage(message, streamingBody: streamingBody)
        var frames: [[UInt8]] = []
        while outgoing.hasMoreFrames {
            frames.append(try nextFrame(of: &outgoing, maxFrameSize: maxFrameSize))
        }
        return frames
    }

    private mutating func updateChecksum(_ payload: [UInt8], _ range: Range<Int>) {
        guard !range.isEmpty else { return }
        payload.withUnsafeBytes { bytes in
            let base = bytes.baseAddress.map { $0.assumingMemoryBound(to: Bytef.self) + range.lowerBound }
            checksum = UInt32(truncatingIfNeeded: crc32(uLong(checksum), base, uInt(range.count)))
        }
    }

    /// The deflate stream, created on first use and copied if another writer copy shares it.
    private mutating func uniqueDeflater() throws -> DeflateStream {
        let level = compressionLevel
        return try DeflateStream.unique(&deflater, copy: { try DeflateStream(copying: $0) },
                                        make: { try DeflateStream(level: level) })
    }

    /// `Deflater::_writeAndFlush`: compress `piece` gradually, flushing only when the rest is
    /// sure to fit, so zlib never holds output back for lack of room.
    ///
    /// - Returns: the input bytes consumed.
    private mutating func deflateAndFlush(_ payload: [UInt8], _ piece: Range<Int>,
                                          into output: inout [UInt8], length: inout Int) throws -> Int {
        let stream = try uniqueDeflater()
        var inputPosition = piece.lowerBound
        var mode = Z_PARTIAL_FLUSH
        while inputPosition < piece.upperBound {
            let room = output.count - length
            let remaining = piece.upperBound - inputPosition
            var inputCount = remaining
            if room >= stream.bound(remaining) {
                mode = Z_SYNC_FLUSH
            } else if room >= Self.headroomForFlush {
                // (LiteCore's size_t subtraction wraps below 12, meaning "no limit".)
                inputCount = min(remaining, room - Self.headroomForFlush)
            }
            let consumed = try deflate(stream, payload, inputPosition..<inputPosition + inputCount,
                                       into: &output, length: &length, flush: mode)
            inputPosition += consumed
            if output.count - length <= Self.stopAtOutputSize { break }
        }
        if mode != Z_SYNC_FLUSH {
            _ = try deflate(stream, payload, inputPosition..<inputPosition, into: &output, length: &length,
                            flush: Z_SYNC_FLUSH)
        }
        return inputPosition - piece.lowerBound
    }

    /// Makes sure nothing is left inside zlib after the frame's last flush; LiteCore throws
    /// "Compression buffer overflow" here, we let the frame grow instead.
    private mutating func finishFlush(into output: inout [UInt8], length: inout Int) throws {
        guard let stream = deflater else { return }
        while stream.pendingBytes > 0 {
            output += [UInt8](repeating: 0, count: 64)
            _ = try deflate(stream, [], 0..<0, into: &output, length: &length, flush: Z_SYNC_FLUSH)
        }
    }

    private func deflate(_ stream: DeflateStream, _ payload: [UInt8], _ range: Range<Int>,
                         into output: inout [UInt8], length: inout Int, flush: Int32) throws -> Int {
        let start = length
        let (consumed, produced, status) = payload.withUnsafeBytes { input in
            output.withUnsafeMutableBytes { out in
                stream.deflate(UnsafeRawBufferPointer(rebasing: input[range]),
                               into: UnsafeMutableRawBufferPointer(rebasing: out[start...]), flush: flush)
            }
        }
        if status < 0 && status != Z_BUF_ERROR {
            throw BLIPError.invalidMessage("zlib deflate failed (\(status))")
        }
        length += produced
        return consumed
    }
}
