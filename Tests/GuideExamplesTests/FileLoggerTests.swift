import CouchbaseLiteSwift
import Foundation
import Logging
import Testing
import TestSupport

/// The file logger's rotation and cap, and the swift-log handler that feeds it.
///
/// `Database.log` is one per process: these tests run inside `LoggingExamples`' serial order
/// by sharing its setting discipline (each sets what it needs and puts the defaults back), and
/// use messages no other test writes.
extension LoggingExamples {
    /// A swift-log logger writing into Couchbase Lite's files through the public handler.
    private func swiftLogger(_ label: String) -> Logging.Logger {
        Logging.Logger(label: label) { CouchbaseLiteLogHandler(label: $0) }
    }

    /// `cbl_<level>_*.cbllog` files in `directory`, oldest first.
    private func logFiles(_ level: String, in directory: TemporaryDirectory) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory.path)
            .filter { $0.hasPrefix("cbl_\(level)_") && $0.hasSuffix(".cbllog") }
            .sorted { Int64($0.dropFirst("cbl_\(level)_".count).dropLast(7)) ?? 0 < Int64($1.dropFirst("cbl_\(level)_".count).dropLast(7)) ?? 0 }
    }

    @Test func configurationDefaultsAreThoseOfCouchbaseLite() {
        let config = LogFileConfiguration(directory: "/tmp/logs")
        #expect(config.maxSize == 500 * 1024)
        #expect(config.maxRotateCount == 1)
        #expect(config.usePlainText == false)
        #expect(Database.log.file.level == .none)
        #expect(Database.log.console.level == .warning)
    }

    @Test func writingPastMaxSizeRotatesAndKeepsAtMostMaxRotateCountOldFiles() throws {
        defer {
            Database.log.file.config = nil
            Database.log.file.level = .none
        }
        let directory = try TemporaryDirectory()
        let config = LogFileConfiguration(directory: directory.path)
        config.usePlainText = true
        config.maxSize = 2048
        config.maxRotateCount = 2
        Database.log.file.config = config
        Database.log.file.level = .info

        let logger = swiftLogger("rotation-test")
        let first = try #require(Database.log.file.currentFiles[.info])
        // About 100 bytes a line: ~25 KB in all, a dozen rotations of 2 KB files.
        for index in 0..<250 {
            logger.info("rotation line \(index) \(String(repeating: "x", count: 60))")
            let files = try logFiles("info", in: directory)
            // The cap holds after every single write: rotation happens inside the call.
            #expect(files.count <= 3, "after line \(index): \(files)")
        }
        logger.warning("a warning goes to the warning file only")

        let infoFiles = try logFiles("info", in: directory)
        #expect(infoFiles.count == 3) // two old files and the current one
        #expect(!infoFiles.contains((first as NSString).lastPathComponent)) // the first was deleted
        let current = try #require(Database.log.file.currentFiles[.info])
        #expect((current as NSString).lastPathComponent == infoFiles.last)
        for old in infoFiles.dropLast() {
            let size = try #require(try FileManager.default.attributesOfItem(atPath: directory.path + "/" + old)[.size] as? Int)
            #expect(size >= 2048 && size < 2048 + 200, "\(old): \(size) bytes")
        }
        let newest = try String(contentsOfFile: current, encoding: .utf8)
        #expect(newest.hasPrefix("---- "))
        let allInfo = try infoFiles.map { try String(contentsOfFile: directory.path + "/" + $0, encoding: .utf8) }.joined()
        #expect(allInfo.contains("[Database]: rotation-test: rotation line 249 "))
        #expect(!allInfo.contains("rotation line 0 ")) // rotated away
        #expect(!allInfo.contains("a warning goes"))

        // The file logger is the process's: other tests running meanwhile may add warnings of
        // their own (a listener refusing a hostile peer), so ours is looked for among the files.
        let warnings = try logFiles("warning", in: directory)
        #expect(warnings.count >= 1 && warnings.count <= config.maxRotateCount + 1)
        let warningText = try warnings.map { try String(contentsOfFile: directory.path + "/" + $0, encoding: .utf8) }.joined()
        #expect(warningText.contains("[Database] WARNING: rotation-test: a warning goes to the warning file only"))
        for level in ["debug", "verbose", "error"] {
            #expect(try logFiles(level, in: directory).count == 1)
        }

        // Configuring again starts new files and trims each level to maxRotateCount old ones.
        Database.log.file.config = config
        #expect(try logFiles("info", in: directory).count == 3)
        #expect((2...config.maxRotateCount + 1).contains(try logFiles("warning", in: directory).count))
    }

    @Test func aSmallerMaxRotateCountDeletesOldFilesWhenConfigured() throws {
        defer {
            Database.log.file.config = nil
            Database.log.file.level = .none
        }
        let directory = try TemporaryDirectory()
        let config = LogFileConfiguration(directory: directory.path)
        config.maxSize = 1024
        config.maxRotateCount = 0
        Database.log.file.config = config
        Database.log.file.level = .verbose
        let logger = swiftLogger("no-backups")
        for index in 0..<40 { logger.debug("line \(index) \(String(repeating: "y", count: 80))") }
        // maxRotateCount 0: only the current file is ever kept.
        #expect(try logFiles("verbose", in: directory).count == 1)
        let current = try String(contentsOfFile: try #require(Database.log.file.currentFiles[.verbose]), encoding: .utf8)
        #expect(!current.contains("line 0 "))
        #expect(current.utf8.count < 1024 + 200)
    }

    @Test func theReadOnlyCopyIgnoresChanges() throws {
        defer { Database.log.file.config = nil }
        let directory = try TemporaryDirectory()
        Database.log.file.config = LogFileConfiguration(directory: directory.path)
        Database.log.file.config?.maxSize = 1
        #expect(Database.log.file.config?.maxSize == 500 * 1024)
        let copy = try #require(Database.log.file.config.map { LogFileConfiguration(config: $0) })
        copy.maxSize = 4096
        #expect(copy.maxSize == 4096)
        Database.log.file.config = copy
        #expect(Database.log.file.config?.maxSize == 4096)
    }

    @Test func swiftLogMessagesReachTheCustomLoggerWithLevelsMapped() {
        let recorder = RecordingLogger(level: .debug)
        withCustomLogger(recorder) {
            var logger = swiftLogger("app")
            logger.logLevel = .trace
            logger[metadataKey: "request"] = "42"
            logger.trace("swift-log trace")
            logger.debug("swift-log debug")
            logger.notice("swift-log notice")
            logger.critical("swift-log critical")
        }
        #expect(recorder.received("app: swift-log trace request=42").first?.0 == .debug)
        #expect(recorder.received("swift-log debug").first?.0 == .verbose)
        #expect(recorder.received("swift-log notice").first?.0 == .info)
        #expect(recorder.received("swift-log critical").first?.0 == .error)
        #expect(LogLevel.verbose.swiftLogLevel == .debug)
        #expect(LogLevel.allCases.filter { $0 != .none }.allSatisfy { LogLevel($0.swiftLogLevel) == $0 })
    }
}
