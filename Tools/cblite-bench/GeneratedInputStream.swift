import Foundation

/// An `InputStream` of deterministic pseudo-random bytes, generated as they are read, so a
/// huge blob can be streamed without ever being held in memory.
final class GeneratedInputStream: InputStream {
    private let byteCount: Int
    private var produced = 0
    private var state: UInt64
    private var status: Stream.Status = .notOpen

    /// - Parameter seed: different seeds give different content (a seed of 0 is used as 1).
    init(byteCount: Int, seed: UInt64 = 0x9E37_79B9_7F4A_7C15) {
        self.byteCount = byteCount
        state = seed == 0 ? 1 : seed
        super.init(data: Data())
    }

    override func open() { status = .open }
    override func close() { status = .closed }
    override var streamStatus: Stream.Status { status }
    override var hasBytesAvailable: Bool { produced < byteCount }
    override var streamError: Error? { nil }

    override func read(_ buffer: UnsafeMutablePointer<UInt8>, maxLength length: Int) -> Int {
        let count = min(length, byteCount - produced)
        guard count > 0 else {
            status = .atEnd
            return 0
        }
        var index = 0
        while index < count {
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            var word = state.littleEndian
            let take = min(8, count - index)
            withUnsafeBytes(of: &word) { bytes in
                for offset in 0..<take { buffer[index + offset] = bytes[offset] }
            }
            index += 8
        }
        produced += count
        return count
    }

    override func getBuffer(_ buffer: UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>,
                            length: UnsafeMutablePointer<Int>) -> Bool { false }
}
