/// A record as a visit sees it: its bytes borrowed from the engine, valid only inside the
/// visitor call that receives it (copy what must outlive the call).
package struct RecordView {
    /// The document ID's UTF-8 bytes.
    package let key: UnsafeRawBufferPointer
    /// The body (the revision tree for documents).
    package let body: UnsafeRawBufferPointer
    /// The document flags.
    package let flags: DocumentFlags
    /// The sequence of the record's last write.
    package let sequence: UInt64
    /// The expiration, in milliseconds since the Unix epoch.
    package let expiration: Int64?
    /// Where the engine keeps the record, for an entry of a store made by
    /// ``DataFile/indexStore(_:over:)`` to keep instead of looking it up (``PackedByteKeyEntries``);
    /// 0 when the engine has no such position or did not read it. Valid only in the transaction
    /// or snapshot it was read in.
    package let position: Int64

    /// Makes a view over borrowed bytes.
    package init(key: UnsafeRawBufferPointer, body: UnsafeRawBufferPointer, flags: DocumentFlags,
                 sequence: UInt64, expiration: Int64?, position: Int64 = 0) {
        self.key = key
        self.body = body
        self.flags = flags
        self.sequence = sequence
        self.expiration = expiration
        self.position = position
    }

    /// The document ID as a string (a copy).
    package var keyString: String { String(decoding: key, as: UTF8.self) }
}
