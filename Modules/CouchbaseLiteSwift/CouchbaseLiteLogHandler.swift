import Logging

/// A swift-log `LogHandler` that writes into Couchbase Lite's log files and custom logger, so
/// an app's own swift-log messages land in the same rotated `cbl_<level>_*.cbllog` files as the
/// database's (and in `Database.log.custom`).
///
/// ```swift
/// import Logging
///
/// Database.log.file.config = LogFileConfiguration(directory: "/var/log/myapp")
/// Database.log.file.level = .info
/// LoggingSystem.bootstrap { label in
///     MultiplexLogHandler([StreamLogHandler.standardError(label: label),
///                          CouchbaseLiteLogHandler(label: label)])
/// }
/// ```
///
/// The other direction needs nothing: the console logger already logs through swift-log
/// (labels `CouchbaseLite.<Domain>`), so a bootstrapped backend receives Couchbase Lite's
/// messages. This handler never writes to the console, so bootstrapping with it cannot loop.
/// Levels map as ``LogLevel/init(_:)`` says; metadata is appended as `key=value`.
public struct CouchbaseLiteLogHandler: LogHandler {
    /// The swift-log label, written before each message (`label: message`).
    public let label: String
    /// The Couchbase Lite domain messages are filed under (default `.database`).
    public let domain: LogDomain
    /// Messages below this swift-log level are dropped here (default `.trace`: the file and
    /// custom loggers' own levels decide).
    public var logLevel: Logging.Logger.Level = .trace
    /// Metadata added to every message.
    public var metadata: Logging.Logger.Metadata = [:]

    /// A handler for the logger `label`, filing its messages under `domain`.
    public init(label: String, domain: LogDomain = .database) {
        self.label = label
        self.domain = domain
    }

    /// One metadata value.
    public subscript(metadataKey key: String) -> Logging.Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    /// Writes one swift-log record into Couchbase Lite's file and custom loggers.
    public func log(event: LogEvent) {
        var merged = metadata
        if let extra = event.metadata { merged.merge(extra) { $1 } }
        var text = "\(label): \(event.message)"
        if !merged.isEmpty {
            text += " " + merged.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        }
        Database.log.logBesideConsole(LogLevel(event.level), domain == .all ? .database : domain, text)
    }
}
