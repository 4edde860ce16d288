import Foundation
import LiteSupport

/// Writes log messages into files, one file per level (`cbl_info_<millis>.cbllog`,
/// `cbl_warning_<millis>.cbllog`, …), rotated at ``LogFileConfiguration/maxSize`` and keeping at
/// most ``LogFileConfiguration/maxRotateCount`` old files per level. Off until both ``config``
/// and ``level`` are set.
///
/// ```swift
/// let tempFolder = NSTemporaryDirectory().appending("cbllog")
/// Database.log.file.config = LogFileConfiguration(directory: tempFolder)
/// Database.log.file.level = .info
/// ```
///
/// Each line is `HH:MM:SS.micros| [Domain] LEVEL: message` (the level word only for warnings
/// and errors, `***` for debug), as Couchbase Lite's plain-text logs are. Writing and rotation
/// happen before the logging call returns, so a file is complete as soon as the call is.
public final class FileLogger: Sendable {
    private struct State: Sendable {
        var settings: LogFileConfiguration.Values?
        var level = LogLevel.none
        var files: [LogLevel: RotatingLogFile] = [:]
        /// Set after a failure was reported, so a broken directory is reported once, not per line.
        var reportedFailure = false

        /// Closes every file and forgets it.
        mutating func closeFiles() {
            for level in files.keys { files[level]?.closeFile() }
            files = [:]
        }
    }

    private let state = Locked(State())

    init() {}

    /// Where and how the files are written (nil, the default: no file logging). Setting it
    /// closes the current files, deletes the oldest files of each level beyond
    /// `maxRotateCount`, and starts a new file for every level. Reading it gives a read-only
    /// copy.
    public var config: LogFileConfiguration? {
        get { state.withLock { $0.settings }.map { LogFileConfiguration(readOnly: $0) } }
        set {
            let failure: String? = state.withLock { state in
                state.closeFiles()
                state.settings = newValue?.values
                state.reportedFailure = false
                guard let settings = state.settings else { return nil }
                do {
                    try FileManager.default.createDirectory(atPath: settings.directory, withIntermediateDirectories: true)
                    for level in LogLevel.fileLevels {
                        guard let name = level.fileName else { continue }
                        state.files[level] = try RotatingLogFile(directory: settings.directory, levelName: name,
                                                                 settings: settings, header: Self.header)
                    }
                    return nil
                } catch {
                    state.closeFiles()
                    state.reportedFailure = true
                    return "cannot log to files in \(settings.directory): \(error)"
                }
            }
            if let failure { Self.reportToStandardError(failure) }
        }
    }

    /// The least severe level written (default `.none`: nothing).
    public var level: LogLevel {
        get { state.withLock { $0.level } }
        set { state.withLock { $0.level = newValue } }
    }

    /// The paths of the files being written now, by level (empty when file logging is off).
    public var currentFiles: [LogLevel: String] {
        state.withLock { state in state.files.compactMapValues(\.path) }
    }

    /// Whether a message of `level` would be written.
    func mightLog(_ level: LogLevel) -> Bool {
        state.withLock { level != .none && level >= $0.level && !$0.files.isEmpty }
    }

    /// Writes one message into the file of its level.
    func log(level: LogLevel, domain: LogDomain, message: String) {
        let failure: String? = state.withLock { state in
            guard level != .none, level >= state.level, state.files[level] != nil else { return nil }
            do {
                try state.files[level]?.appendLine(Self.line(level: level, domain: domain, message: message))
                return nil
            } catch {
                // A full disk or a deleted directory must not take the app down, nor loop back
                // into the log: say it once on standard error and stop writing this level.
                state.files[level]?.closeFile()
                state.files[level] = nil
                guard !state.reportedFailure else { return nil }
                state.reportedFailure = true
                return "file logging stopped: \(error)"
            }
        }
        if let failure { Self.reportToStandardError(failure) }
    }

    // MARK: Format

    static let header = "CouchbaseLiteSwift (Linux; Couchbase Lite 2.x file format: plain text)"

    private static let levelWords: [LogLevel: String] = [.debug: "***", .warning: "WARNING", .error: "ERROR"]

    static func line(level: LogLevel, domain: LogDomain, message: String) -> String {
        var now = timeval()
        gettimeofday(&now, nil)
        var seconds = now.tv_sec
        var parts = tm()
        localtime_r(&seconds, &parts)
        let time = String(format: "%02d:%02d:%02d.%06d| ", parts.tm_hour, parts.tm_min, parts.tm_sec, Int(now.tv_usec))
        let header = levelWords[level].map { "[\(domain.name)] \($0): " } ?? "[\(domain.name)]: "
        return time + header + message + "\n"
    }

    private static func reportToStandardError(_ text: String) {
        FileHandle.standardError.write(Data("CouchbaseLite: \(text)\n".utf8))
    }
}
