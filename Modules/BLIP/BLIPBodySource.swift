/// A message body read in pieces while its frames go out (a blob served to the peer), so it is
/// never held whole: at most one piece plus the frames flow control lets out.
///
/// The connection reads it from its writer, under its lock, one piece of
/// ``BLIPOutgoingMessage/dataSourceChunkSize`` bytes at a time, as LiteCore reads a message's
/// data source; a short or empty piece ends the body.
package protocol BLIPBodySource: AnyObject, Sendable {
    /// Reads up to `maxLength` bytes; fewer than `maxLength` (possibly none) means the end.
    ///
    /// - Throws: any error; the connection then closes, as a message cannot be abandoned
    ///   half-sent.
    func read(maxLength: Int) throws -> [UInt8]
}
