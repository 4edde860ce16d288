import CouchbaseLiteSwift
import Foundation
import Testing
import TestSupport

// tag::custom-logging[]
fileprivate class LogTestLogger: Logger {

    // set the log level
    var level: LogLevel = .none

    func log(level: LogLevel, domain: LogDomain, message: String) {
        // handle the message, for example piping it to
        // a third party framework
    }

}
// end::custom-logging[]

/// A custom logger that keeps what it receives, to check what reached it.
final class RecordingLogger: Logger, @unchecked Sendable {
    // @unchecked: `messages` is only touched under `lock`.
    let level: LogLevel
    private let lock = NSLock()
    private var messages: [(LogLevel, LogDomain, String)] = []

    private var forward: (any Logger)?

    init(level: LogLevel) { self.level = level }

    /// A logger every message is also passed to (the one this one replaced).
    var forwardTo: (any Logger)? {
        get { lock.lock(); defer { lock.unlock() }; return forward }
        set { lock.lock(); defer { lock.unlock() }; forward = newValue }
    }

    func log(level: LogLevel, domain: LogDomain, message: String) {
        lock.lock()
        messages.append((level, domain, message))
        let next = forward
        lock.unlock()
        if let next, level >= next.level, next.level != .none { next.log(level: level, domain: domain, message: message) }
    }

    /// The messages containing `text`.
    func received(_ text: String) -> [(LogLevel, LogDomain, String)] {
        lock.lock()
        defer { lock.unlock() }
        return messages.filter { $0.2.contains(text) }
    }
}

/// The guide's logging: 2.0's `setLogLevel(_:domain:)` and 2.5+'s `Database.log` (console,
/// file, custom). `Database.log` is one per process, so these run one at a time and put
/// every setting back. `Database.log.custom` is also set by `LoudFailureTests` (another suite,
/// which may run at the same time): tests here replace it only briefly, keep forwarding to
/// the logger they found, and put that one back.
@Suite(.serialized, .ownThreads) struct LoggingExamples {
    private func restoreDefaults() {
        Database.log.console.level = .warning
        Database.log.console.domains = .all
        Database.log.file.config = nil
        Database.log.file.level = .none
    }

    /// Installs `logger` as the custom logger while `body` runs, forwarding every message to
    /// the logger that was installed before, which is put back afterwards.
    func withCustomLogger<T>(_ logger: RecordingLogger, _ body: () throws -> T) rethrows -> T {
        try GlobalLogLock.exclusive {
            let previous = Database.log.custom
            logger.forwardTo = previous
            Database.log.custom = logger
            defer { if Database.log.custom as? RecordingLogger === logger { Database.log.custom = previous } }
            return try body()
        }
    }

    @Test func setLogLevelRaisesTheConsoleLevelOfOneDomain() {
        defer { restoreDefaults() }
        // tag::logging[]
        Database.setLogLevel(.verbose, domain: .replicator)
        Database.setLogLevel(.verbose, domain: .query)
        // end::logging[]
        #expect(Database.log.console.level(for: .replicator) == .verbose)
        #expect(Database.log.console.level(for: .query) == .verbose)
        #expect(Database.log.console.level(for: .database) == .warning)
        #expect(Database.log.console.level(for: .network) == .warning)

        // tag::replication-logging[]
        // Replicator
        Database.setLogLevel(.verbose, domain: .replicator)
        // Network
        Database.setLogLevel(.verbose, domain: .network)
        // end::replication-logging[]
        #expect(Database.log.console.level(for: .network) == .verbose)

        Database.setLogLevel(.error, domain: .all)
        #expect(LogDomain.allCases.allSatisfy { Database.log.console.level(for: $0) == .error })
        #expect(Database.log.console.domains == .all)
    }

    @Test func consoleLevelAndDomainsAreSetDirectly() {
        defer { restoreDefaults() }
        // tag::console-logging[]
        Database.log.console.domains = .all
        Database.log.console.level = .verbose
        // end::console-logging[]
        #expect(Database.log.console.level(for: .database) == .verbose)
        #expect(Database.log.console.domains.contains(.replicator))

        // tag::console-logging-db[]
        Database.log.console.domains = .database
        // end::console-logging-db[]
        #expect(Database.log.console.domains == .database)
        #expect(!Database.log.console.domains.contains(.query))
    }

    @Test(arguments: StorageEngineKind.allCases)
    func fileLoggingWritesOneFilePerLevel(engine: StorageEngineKind) throws {
        defer { restoreDefaults() }
        // tag::file-logging[]
        let tempFolder = NSTemporaryDirectory().appending("cbllog")
        Database.log.file.config = LogFileConfiguration(directory: tempFolder)
        Database.log.file.level = .info
        // end::file-logging[]

        // The folder is shared with earlier runs: look only at the files this configuration
        // started (their names carry the time they were started, so they are new).
        let files = Database.log.file.currentFiles
        try withTravelSample(engine) { database in
            try database.compact()
        }
        Database.log.file.config = nil

        #expect(Set(files.keys) == [.debug, .verbose, .info, .warning, .error])
        for (level, path) in files {
            let name = (path as NSString).lastPathComponent
            #expect((path as NSString).deletingLastPathComponent == (tempFolder as NSString).standardizingPath
                    || (path as NSString).deletingLastPathComponent == tempFolder)
            #expect(name.hasPrefix("cbl_\(level)_") && name.hasSuffix(".cbllog"), "\(name)")
            #expect(Int64(name.dropFirst("cbl_\(level)_".count).dropLast(".cbllog".count)) != nil, "\(name)")
        }
        let info = try String(contentsOfFile: try #require(files[.info]), encoding: .utf8)
        #expect(info.contains("[Database]: Opened database \"travel-sample\""))
        #expect(info.contains("Compacted database \"travel-sample\""))
        #expect(info.contains("Closed database \"travel-sample\""))
        // The file logger's level is info: the verbose file holds only its header line.
        let verbose = try String(contentsOfFile: try #require(files[.verbose]), encoding: .utf8)
        #expect(verbose.split(separator: "\n").count == 1)
        #expect(verbose.hasPrefix("---- ") && verbose.hasSuffix(" ----\n"))
    }

    @Test(arguments: StorageEngineKind.allCases)
    func customLoggerReceivesMessagesAtItsLevel(engine: StorageEngineKind) throws {
        defer { restoreDefaults() }
        let installed = GlobalLogLock.exclusive { () -> (any Logger)? in
            let previous = Database.log.custom
            // tag::set-custom-logging[]
            Database.log.custom = LogTestLogger()
            // end::set-custom-logging[]
            defer { Database.log.custom = previous }
            return Database.log.custom
        }
        #expect(installed?.level == LogLevel.none)

        let recorder = RecordingLogger(level: .info)
        let name = "custom-logger-\(engine)"
        try withCustomLogger(recorder) {
            try withTemporaryDirectory { directory in
                let database = try Database(name: name, config: engine.config(in: directory))
                try database.close()
            }
        }
        let opened = recorder.received("Opened database \"\(name)\"")
        #expect(opened.count == 1)
        #expect(opened.first?.0 == .info)
        #expect(opened.first?.1 == .database)
        #expect(recorder.received("Opening database \"\(name)\"").isEmpty) // verbose: below the logger's level
        #expect(recorder.received("Closed database \"\(name)\"").count == 1)
    }
}
