/// How much of a record a read returns.
package enum RecordContent: Sendable {
    /// Key, version, flags, sequence, expiration and the body.
    case all
    /// Everything except the body (`bodySize` is still set): cheap for large bodies.
    case metaOnly
}
