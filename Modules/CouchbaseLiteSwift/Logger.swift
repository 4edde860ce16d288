/// An app's own log sink, set as `Database.log.custom`: Couchbase Lite calls ``log(level:domain:message:)``
/// for every message at or above ``level``, as Couchbase Lite 2.5+ does.
///
/// ```swift
/// final class AppLogger: Logger {
///     let level: LogLevel = .info
///     func log(level: LogLevel, domain: LogDomain, message: String) {
///         print("[\(domain)] \(message)")  // allowed: the caller's code in a doc example
///     }
/// }
/// Database.log.custom = AppLogger()
/// ```
///
/// Messages come from any thread: an implementation must be safe to call concurrently. (The
/// protocol does not require `Sendable`, so the 2.x guide's class with a `var level` still
/// compiles.) ``level`` is read for every message, so changing it takes effect at once.
///
/// In a file that also imports swift-log's `Logging`, write `CouchbaseLiteSwift.Logger`.
public protocol Logger {
    /// The most detailed level this logger wants (`.none`: nothing).
    var level: LogLevel { get }
    /// Receives one message.
    func log(level: LogLevel, domain: LogDomain, message: String)
}

/// The earlier name of ``Logger``, kept so code written against it (and code in a file that
/// imports swift-log, where `Logger` is ambiguous) needs no change.
public typealias CustomLogger = Logger
