/// One entry of an ordered byte-key store.
package struct ByteKeyEntry: Hashable, Sendable {
    /// The key; entries are ordered by its unsigned bytes.
    package var key: [UInt8]
    /// The value.
    package var value: [UInt8]

    /// Makes an entry.
    package init(key: [UInt8], value: [UInt8]) {
        self.key = key
        self.value = value
    }
}
