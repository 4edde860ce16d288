import Fleece
import FoundationEssentials
import LiteSupport

/// Keeps one Fleece encoder per database for saves, so each save reuses its buffers and
/// string table instead of growing new ones (saves are serialized by the write transaction,
/// so one is almost always enough).
final class EncoderPool: @unchecked Sendable {
    // @unchecked: an encoder is used by one thread at a time; `spare` is behind its lock.
    private let spare = Locked<FleeceEncoder?>(nil)
    private let sharedKeys: SharedKeys

    init(sharedKeys: SharedKeys) {
        self.sharedKeys = sharedKeys
    }

    /// Runs `body` with a clean encoder that uses the database's shared keys.
    func withEncoder<T>(_ body: (FleeceEncoder) throws -> T) rethrows -> T {
        let encoder = spare.withLock { spare -> FleeceEncoder? in
            defer { spare = nil }
            return spare
        } ?? FleeceEncoder(sharedKeys: sharedKeys)
        defer {
            encoder.reset()
            spare.withLock { $0 = encoder }
        }
        return try body(encoder)
    }
}
