/// How much of a peer's unfinished traffic one connection holds before it closes the
/// connection: the bounds that keep a hostile or broken peer from growing this process's
/// memory without end (docs/reliability.md, "Hostile peers: the listener").
///
/// Messages being received are refused, not paused for: their bytes are only freed by reading
/// more of the peer's frames, so waiting would stall a legitimate peer for good. Complete
/// requests waiting for the connection's consumer are paused for instead: the reader stops
/// reading frames (and so the transport stops reading the socket) until the consumer takes them.
package struct BLIPLimits: Sendable, Equatable {
    /// The largest incoming message (bytes, uncompressed); streamed reply bodies are not
    /// limited by it. Over it: ``BLIPError/messageTooLarge(limit:)``, close code 1009.
    package var maxMessageSize: Int
    /// The most incoming messages under way at once (first frame read, last one not yet).
    /// LiteCore's and our pushers keep at most 100 revisions in flight. Over it:
    /// ``BLIPError/limitExceeded(_:)``, close code 1008.
    package var maxOpenMessages: Int
    /// The most bytes (uncompressed) those messages may hold together. Over it:
    /// ``BLIPError/limitExceeded(_:)``, close code 1008.
    package var maxIncompleteBytes: Int
    /// The most complete requests delivered to ``BLIPConnection/requests`` and not yet taken
    /// by its consumer; at this many the reader waits (back-pressure, not an error).
    package var maxQueuedRequests: Int

    /// The defaults: 64 MiB messages, 256 open messages, 96 MiB held, 256 queued requests.
    package static let `default` = BLIPLimits(maxMessageSize: 64 << 20, maxOpenMessages: 256,
                                              maxIncompleteBytes: 96 << 20)

    /// Limits with the given values.
    package init(maxMessageSize: Int, maxOpenMessages: Int, maxIncompleteBytes: Int, maxQueuedRequests: Int = 256) {
        self.maxMessageSize = maxMessageSize
        self.maxOpenMessages = maxOpenMessages
        self.maxIncompleteBytes = maxIncompleteBytes
        self.maxQueuedRequests = maxQueuedRequests
    }
}
