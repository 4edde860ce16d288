import Logging
import LiteSupport

/// How much Couchbase Lite logs, from everything (`debug`) to nothing (`none`).
public enum LogLevel: UInt8, Sendable, Comparable, CaseIterable {
    case debug = 0, verbose, info, warning, error, none

    /// Orders levels from most detailed (`debug`) to `none`.
    public static func < (lhs: LogLevel, rhs: LogLevel) -> Bool { lhs.rawValue < rhs.rawValue }

    var swiftLogLevel: Logging.Logger.Level {
        switch self {
        case .debug: .debug
        case .verbose: .trace
        case .info: .info
        case .warning: .warning
        case .error, .none: .error
        }
    }
}

/// The area a log message comes from.
public enum LogDomain: UInt8, Sendable, CaseIterable {
    case database, query, replicator, network
}

/// A set of log domains, for filtering the console.
public struct LogDomains: OptionSet, Sendable {
    /// The raw bits.
    public let rawValue: UInt8
    /// Wraps raw bits.
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// Database messages.
    public static let database = LogDomains(rawValue: 1 << 0)
    /// Query messages.
    public static let query = LogDomains(rawValue: 1 << 1)
    /// Replicator messages.
    public static let replicator = LogDomains(rawValue: 1 << 2)
    /// Network messages.
    public static let network = LogDomains(rawValue: 1 << 3)
    /// Every domain.
    public static let all: LogDomains = [.database, .query, .replicator, .network]

    init(_ domain: LogDomain) { self.init(rawValue: 1 << domain.rawValue) }
}

/// An app's own log sink, set as ``Log/custom``.
public protocol CustomLogger: Sendable {
    /// The most detailed level this logger wants.
    var level: LogLevel { get }
    /// Receives one message.
    func log(level: LogLevel, domain: LogDomain, message: String)
}

/// The console log: messages at or above ``level`` in ``domains`` go to swift-log's loggers
/// labelled `CouchbaseLite.<Domain>` (stderr unless the app bootstraps another backend).
public final class ConsoleLogger: Sendable {
    private let state = Locked((level: LogLevel.warning, domains: LogDomains.all))

    /// The least severe level logged (default `.warning`).
    public var level: LogLevel {
        get { state.withLock { $0.level } }
        set { state.withLock { $0.level = newValue } }
    }

    /// The domains logged (default: all).
    public var domains: LogDomains {
        get { state.withLock { $0.domains } }
        set { state.withLock { $0.domains = newValue } }
    }

    private static let loggers: [LogDomain: Logging.Logger] = Dictionary(uniqueKeysWithValues: LogDomain.allCases.map {
        var logger = Logging.Logger(label: "CouchbaseLite.\(String(describing: $0).capitalized)")
        logger.logLevel = .trace
        return ($0, logger)
    })

    func log(level: LogLevel, domain: LogDomain, message: String) {
        let (minimum, domains) = state.withLock { ($0.level, $0.domains) }
        guard level >= minimum, level != .none, domains.contains(LogDomains(domain)) else { return }
        Self.loggers[domain]?.log(level: level.swiftLogLevel, "\(message)")
    }
}

/// Couchbase Lite's logging: the console and an optional custom logger. Reach it as
/// `Database.log`.
///
/// ```swift
/// Database.log.console.level = .info
/// Database.log.console.domains = [.database, .query]
/// ```
public final class Log: Sendable {
    /// The console logger.
    public let console = ConsoleLogger()
    private let customLogger = Locked<(any CustomLogger)?>(nil)

    /// An app's own logger, called in addition to the console.
    public var custom: (any CustomLogger)? {
        get { customLogger.withLock { $0 } }
        set { customLogger.withLock { $0 = newValue } }
    }

    init() {}

    func log(_ level: LogLevel, _ domain: LogDomain, _ message: @autoclosure () -> String) {
        let custom = self.custom
        let wantsCustom = custom.map { level >= $0.level } ?? false
        guard wantsCustom || level >= console.level else { return }
        let text = message()
        console.log(level: level, domain: domain, message: text)
        if wantsCustom { custom?.log(level: level, domain: domain, message: text) }
    }
}
