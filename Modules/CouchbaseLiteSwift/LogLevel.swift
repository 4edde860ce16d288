import Logging

/// How much Couchbase Lite logs, from everything (`debug`) to nothing (`none`).
///
/// The same six levels as Couchbase Lite 2.x, with the same numbers. Each maps to a swift-log
/// level (``swiftLogLevel``): `debug` → `.trace`, `verbose` → `.debug`, `info`, `warning`,
/// `error` → the levels of the same name.
public enum LogLevel: UInt8, Sendable, Comparable, CaseIterable {
    /// Everything, including what only someone reading the library's code would want.
    case debug = 0
    /// Detail for someone debugging an app: each step of an open, a conversion, an upgrade.
    case verbose
    /// Normal events worth knowing: a database opened, closed, upgraded or converted.
    case info
    /// Something went wrong and was worked around.
    case warning
    /// Something failed.
    case error
    /// Nothing (as a logger's level: the logger is off).
    case none

    /// Orders levels from most detailed (`debug`) to `none`.
    public static func < (lhs: LogLevel, rhs: LogLevel) -> Bool { lhs.rawValue < rhs.rawValue }

    /// The swift-log level a message of this level is logged at.
    public var swiftLogLevel: Logging.Logger.Level {
        switch self {
        case .debug: .trace
        case .verbose: .debug
        case .info: .info
        case .warning: .warning
        case .error, .none: .error
        }
    }

    /// The Couchbase Lite level of a swift-log level (`notice` is `info`, `critical` is `error`).
    public init(_ level: Logging.Logger.Level) {
        switch level {
        case .trace: self = .debug
        case .debug: self = .verbose
        case .info, .notice: self = .info
        case .warning: self = .warning
        case .error, .critical: self = .error
        }
    }

    /// The level's name in log file names (`cbl_<name>_<millis>.cbllog`), nil for `none`.
    var fileName: String? {
        switch self {
        case .debug: "debug"
        case .verbose: "verbose"
        case .info: "info"
        case .warning: "warning"
        case .error: "error"
        case .none: nil
        }
    }

    /// The levels that have a log file, most detailed first.
    static let fileLevels: [LogLevel] = [.debug, .verbose, .info, .warning, .error]
}
