import LiteSupport

/// Couchbase Lite's logging: the console, the log files and an app's own logger. Reach it as
/// `Database.log`.
///
/// ```swift
/// Database.log.console.level = .info
/// Database.log.console.domains = [.database, .query]
/// Database.log.file.config = LogFileConfiguration(directory: "/tmp/cbllog")
/// Database.log.file.level = .verbose
/// Database.log.custom = AppLogger()
/// ```
///
/// Every message goes to each of the three that wants its level (and, for the console, its
/// domain). Messages are built only when one of them wants them.
public final class Log: Sendable {
    /// The console logger (swift-log; level `.warning` by default).
    public let console = ConsoleLogger()
    /// The file logger (off by default).
    public let file = FileLogger()

    /// The app's logger, boxed: the ``Logger`` protocol does not require `Sendable` (2.x's does
    /// not), and the documented contract is that it can be called from any thread.
    private struct CustomBox: @unchecked Sendable {
        // Unchecked: the app's logger is called from any thread, as in 2.x; Swift cannot check
        // the app's type, and requiring `Sendable` would break 2.x code.
        let logger: any Logger
    }

    private let customLogger = Locked<CustomBox?>(nil)

    /// An app's own logger, called for every message at or above its ``Logger/level`` in
    /// addition to the console and the files (nil, the default: none).
    public var custom: (any Logger)? {
        get { customLogger.withLock { $0?.logger } }
        set { customLogger.withLock { $0 = newValue.map(CustomBox.init) } }
    }

    init() {}

    /// Logs `message` at `level` in `domain` to every logger that wants it.
    func log(_ level: LogLevel, _ domain: LogDomain, _ message: @autoclosure () -> String) {
        guard level != .none else { return }
        let custom = customLogger.withLock { $0?.logger }
        let wantsCustom = custom.map { level >= $0.level && $0.level != .none } ?? false
        let wantsConsole = console.mightLog(level)
        let wantsFile = file.mightLog(level)
        guard wantsCustom || wantsConsole || wantsFile else { return }
        let text = message()
        if wantsConsole { console.log(level: level, domain: domain, message: text) }
        if wantsFile { file.log(level: level, domain: domain, message: text) }
        if wantsCustom { custom?.log(level: level, domain: domain, message: text) }
    }

    /// Logs into the files and the custom logger only: what a swift-log handler feeds in (the
    /// console is swift-log itself, and feeding it would loop).
    func logBesideConsole(_ level: LogLevel, _ domain: LogDomain, _ message: String) {
        guard level != .none else { return }
        if file.mightLog(level) { file.log(level: level, domain: domain, message: message) }
        if let custom = customLogger.withLock({ $0?.logger }), custom.level != .none, level >= custom.level {
            custom.log(level: level, domain: domain, message: message)
        }
    }
}
