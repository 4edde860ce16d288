import Fleece
import Foundation

/// Keeps one Fleece encoder per database for saves, so each save reuses its buffers and
/// string table instead of growing new ones (saves are serialized by the write transaction,
/// so one is almost always enough).
final class EncoderPool: @unchecked Sendable {
    // @unchecked: `spare` is only touched under `lock`; an encoder is used by one thread at a time.
    private let lock = NSLock()
    private var spare: FleeceEncoder?
    private let sharedKeys: SharedKeys

    init(sharedKeys: SharedKeys) {
        self.sharedKeys = sharedKeys
    }

    /// Runs `body` with a clean encoder that uses the database's shared keys.
    func withEncoder<T>(_ body: (FleeceEncoder) throws -> T) rethrows -> T {
        let encoder = lock.withLock { () -> FleeceEncoder? in
            defer { spare = nil }
            return spare
        } ?? FleeceEncoder(sharedKeys: sharedKeys)
        defer {
            encoder.reset()
            lock.withLock { spare = encoder }
        }
        return try body(encoder)
    }
}
