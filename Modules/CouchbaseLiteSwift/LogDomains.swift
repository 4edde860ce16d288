/// A set of log domains, for filtering the console (`Database.log.console.domains`).
///
/// ```swift
/// Database.log.console.domains = [.replicator, .network]
/// ```
public struct LogDomains: OptionSet, Sendable {
    /// The raw bits (those of ``LogDomain``).
    public let rawValue: Int
    /// Wraps raw bits.
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// Database messages.
    public static let database = LogDomains(LogDomain.database)
    /// Query messages.
    public static let query = LogDomains(LogDomain.query)
    /// Replicator messages.
    public static let replicator = LogDomains(LogDomain.replicator)
    /// Network messages.
    public static let network = LogDomains(LogDomain.network)
    /// Every domain.
    public static let all = LogDomains(LogDomain.all)

    /// The set holding `domain` (every domain for `.all`).
    public init(_ domain: LogDomain) { self.init(rawValue: Int(domain.rawValue)) }
}
