/// What a ``DroppingTCPProxy`` does to the connections it forwards, besides ``DroppingTCPProxy/dropAll()``.
/// Every random choice comes from `seed` and the connection's number, so a run can be repeated.
/// Only the first `faultyConnections` connections are touched: the ones after them are clean,
/// so a replicator that retries always gets through in the end.
package struct ProxyFaults: Sendable {
    /// Which way a fault applies.
    package enum Direction: Sendable, CaseIterable {
        /// What the client (the side that connected to the proxy) sends.
        case toServer
        /// What the server sends back.
        case toClient
    }

    /// The seed of every random choice.
    package var seed: UInt64
    /// Each faulty connection is cut after a random number of bytes in this range (both
    /// directions together), as a network failure would: mid-frame, without a WebSocket close.
    package var dropAfterBytes: ClosedRange<Int>?
    /// Each chunk is forwarded after a random delay in this range, in milliseconds, split into
    /// pieces of at most `maxChunk` bytes (so frames arrive in several reads, late).
    package var delayMilliseconds: ClosedRange<Int>?
    /// The largest piece forwarded at once when delaying.
    package var maxChunk: Int
    /// One byte is flipped in the payload of this WebSocket binary message (counted from 1 after
    /// the HTTP upgrade, in `corruptDirection`): its BLIP frame then fails its checksum. Messages
    /// shorter than 16 bytes are passed over (the next long enough one is corrupted instead).
    package var corruptMessage: Int?
    /// The direction `corruptMessage` counts in.
    package var corruptDirection: Direction
    /// How many connections (from the first) get the faults.
    package var faultyConnections: Int

    /// No faults: the proxy only forwards (and drops on ``DroppingTCPProxy/dropAll()``).
    package static let none = ProxyFaults(seed: 0, faultyConnections: 0)

    package init(seed: UInt64, dropAfterBytes: ClosedRange<Int>? = nil, delayMilliseconds: ClosedRange<Int>? = nil,
                 maxChunk: Int = 1024, corruptMessage: Int? = nil, corruptDirection: Direction = .toClient,
                 faultyConnections: Int = 3) {
        self.seed = seed
        self.dropAfterBytes = dropAfterBytes
        self.delayMilliseconds = delayMilliseconds
        self.maxChunk = max(1, maxChunk)
        self.corruptMessage = corruptMessage
        self.corruptDirection = corruptDirection
        self.faultyConnections = faultyConnections
    }
}
