/// What a replication filter or document-replication listener is told about a revision.
public struct DocumentFlags: OptionSet, Sendable {
    /// The raw bits.
    public let rawValue: Int
    /// Wraps raw bits.
    public init(rawValue: Int) { self.rawValue = rawValue }
    /// The revision is a deletion.
    public static let deleted = DocumentFlags(rawValue: 1 << 0)
    /// The user lost access to the document on the server (pulled as a removal).
    public static let accessRemoved = DocumentFlags(rawValue: 1 << 1)
}
