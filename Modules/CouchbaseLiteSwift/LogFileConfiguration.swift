/// Where and how ``FileLogger`` writes: the directory, the size at which a file is rotated and
/// how many rotated files are kept per level.
///
/// ```swift
/// let config = LogFileConfiguration(directory: "/var/log/myapp")
/// config.maxSize = 1024 * 1024        // rotate at 1 MB
/// config.maxRotateCount = 3           // keep 3 old files per level
/// Database.log.file.config = config
/// Database.log.file.level = .info
/// ```
///
/// The file logger keeps a copy: change a configuration and assign it again for the change to
/// take effect. The configuration read back from `Database.log.file.config` is read-only;
/// setting one of its properties logs a warning and changes nothing (Couchbase Lite 2.x stops
/// the program instead).
public final class LogFileConfiguration {
    /// The default ``maxSize``: 500 KB.
    public static let defaultMaxSize: UInt64 = 500 * 1024
    /// The default ``maxRotateCount``: 1 (one old file per level beside the current one).
    public static let defaultMaxRotateCount = 1

    /// The directory of the log files (created when the configuration is set).
    public let directory: String

    /// Whether to write plain text rather than Couchbase Lite's binary log format (default
    /// `false`). This implementation writes plain text either way (see docs/decisions.md API-5).
    public var usePlainText: Bool {
        get { values.usePlainText }
        set { if writable("usePlainText") { values.usePlainText = newValue } }
    }

    /// The size in bytes past which a log file is closed and a new one started (default 500 KB;
    /// values under 1,024 count as 1,024, as in Couchbase Lite).
    public var maxSize: UInt64 {
        get { values.maxSize }
        set { if writable("maxSize") { values.maxSize = newValue } }
    }

    /// How many rotated (old) files are kept per level beside the current one (default 1, so two
    /// files per level at most); older ones are deleted.
    public var maxRotateCount: Int {
        get { values.maxRotateCount }
        set { if writable("maxRotateCount") { values.maxRotateCount = newValue } }
    }

    /// A configuration writing into `directory`, with the default size limits.
    public init(directory: String) {
        self.directory = directory
        values = Values(directory: directory)
        isReadOnly = false
    }

    /// A writable copy of `config`.
    public convenience init(config: LogFileConfiguration) {
        self.init(directory: config.directory)
        values = config.values
    }

    // MARK: Internal

    /// The settings as a value, what the file logger keeps.
    struct Values: Sendable, Equatable {
        var directory: String
        var usePlainText = false
        var maxSize = LogFileConfiguration.defaultMaxSize
        var maxRotateCount = LogFileConfiguration.defaultMaxRotateCount

        /// The size that triggers rotation (never under 1 KB, never a file per message).
        var rotationSize: UInt64 { max(1024, maxSize) }
        /// The old files kept per level.
        var keptFiles: Int { max(0, maxRotateCount) }
    }

    private(set) var values: Values
    private let isReadOnly: Bool

    /// The read-only copy handed out by `FileLogger.config`.
    init(readOnly values: Values) {
        directory = values.directory
        self.values = values
        isReadOnly = true
    }

    private func writable(_ property: String) -> Bool {
        guard isReadOnly else { return true }
        Database.log.log(.warning, .database, "LogFileConfiguration.\(property) was set on the read-only copy "
            + "from Database.log.file.config and is ignored: set a new LogFileConfiguration instead")
        return false
    }
}
