import LiteSupport
import Logging

/// The console log: messages at or above ``level`` in ``domains`` go to swift-log loggers
/// labelled `CouchbaseLite.<Domain>` (`CouchbaseLite.Database`, `CouchbaseLite.Query`, …), so
/// they reach standard error, or whatever backend the app bootstraps with
/// `LoggingSystem.bootstrap`.
///
/// ```swift
/// Database.log.console.level = .info
/// Database.log.console.domains = [.database, .query]
/// ```
public final class ConsoleLogger: Sendable {
    private struct State {
        var level = LogLevel.warning
        var domains = LogDomains.all
        /// Levels set for one domain by `Database.setLogLevel(_:domain:)`, as 2.0 keeps a level
        /// per domain; they win over `level` until `level` is set again.
        var domainLevels: [LogDomain: LogLevel] = [:]
        /// The most detailed level any domain logs at, so a message nobody wants costs a compare.
        var minimum = LogLevel.warning

        mutating func updateMinimum() {
            minimum = domainLevels.values.reduce(level) { min($0, $1) }
        }
    }

    private let state = Locked(State())

    init() {}

    /// The least severe level logged (default `.warning`). Setting it applies to every domain
    /// (it replaces levels set per domain by `Database.setLogLevel(_:domain:)`).
    public var level: LogLevel {
        get { state.withLock { $0.level } }
        set {
            state.withLock {
                $0.level = newValue
                $0.domainLevels = [:]
                $0.updateMinimum()
            }
        }
    }

    /// The domains logged (default: all).
    public var domains: LogDomains {
        get { state.withLock { $0.domains } }
        set { state.withLock { $0.domains = newValue } }
    }

    /// The level messages of `domain` are logged at: the one set for it by
    /// `Database.setLogLevel(_:domain:)`, else ``level``.
    public func level(for domain: LogDomain) -> LogLevel {
        state.withLock { $0.domainLevels[domain] ?? $0.level }
    }

    /// 2.0's per-domain level: `.all` sets ``level`` and logs every domain; another domain gets
    /// its own level and is added to ``domains``.
    func setLevel(_ level: LogLevel, domain: LogDomain) {
        state.withLock {
            if domain == .all {
                $0.level = level
                $0.domainLevels = [:]
                $0.domains = .all
            } else {
                $0.domainLevels[domain] = level
                $0.domains.insert(LogDomains(domain))
            }
            $0.updateMinimum()
        }
    }

    /// Whether a message of `level` could be logged in some domain.
    func mightLog(_ level: LogLevel) -> Bool {
        level != .none && level >= state.withLock { $0.minimum }
    }

    private static let loggers: [LogDomain: Logging.Logger] = Dictionary(
        uniqueKeysWithValues: LogDomain.allCases.map { domain in
            var logger = Logging.Logger(label: "CouchbaseLite.\(domain.name)")
            logger.logLevel = .trace
            return (domain, logger)
        })

    func log(level: LogLevel, domain: LogDomain, message: String) {
        let wanted = state.withLock { state in
            level >= (state.domainLevels[domain] ?? state.level) && state.domains.contains(LogDomains(domain))
        }
        guard wanted, level != .none else { return }
        Self.loggers[domain]?.log(level: level.swiftLogLevel, "\(message)")
    }
}
