import FoundationEssentials
import LiteSupport

/// Where the database core reports what it cannot throw (a housekeeping failure on a timer, a
/// refresh that failed). The public API routes it into `Database.log`; until something is
/// installed, warnings and errors go to standard error, so nothing is dropped silently.
package enum DatabaseLog {
    /// How serious a message is.
    package enum Level: Int, Sendable, Comparable {
        /// Detail for someone debugging.
        case verbose
        /// Something normal worth knowing (opened, upgraded, converted).
        case info
        /// Something went wrong and was worked around.
        case warning
        /// Something failed and nobody could be told through an error.
        case error

        package static func < (lhs: Level, rhs: Level) -> Bool { lhs.rawValue < rhs.rawValue }
    }

    /// Receives every message.
    package typealias Handler = @Sendable (Level, String) -> Void

    private static let handler = Locked<Handler?>(nil)

    /// Installs the receiver of every message (nil: back to standard error for warnings and
    /// errors).
    package static func install(_ newHandler: Handler?) {
        handler.withLock { $0 = newHandler }
    }

    /// Reports `message` at `level`.
    package static func log(_ level: Level, _ message: @autoclosure () -> String) {
        if let installed = handler.withLock({ $0 }) {
            installed(level, message())
        } else if level >= .warning {
            StandardStreams.writeError("CouchbaseLite \(level): \(message())\n")
        }
    }

    /// Reports a problem that was worked around.
    package static func warning(_ message: @autoclosure () -> String) { log(.warning, message()) }
    /// Reports a failure nobody could be told about through an error.
    package static func error(_ message: @autoclosure () -> String) { log(.error, message()) }
    /// Reports a normal event.
    package static func info(_ message: @autoclosure () -> String) { log(.info, message()) }
}
