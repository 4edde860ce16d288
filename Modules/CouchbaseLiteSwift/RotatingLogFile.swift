import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The log file of one level: `cbl_<level>_<milliseconds since 1970>.cbllog` in the configured
/// directory, as Couchbase Lite names them. When a write takes the file to `maxSize` or past
/// it, the file is closed, the oldest files of the level are deleted until `maxRotateCount`
/// remain, and a new file is started — all before the write returns. A value owning a
/// descriptor: the ``FileLogger`` holding it serialises every call under its lock and closes it
/// (``closeFile()``) before dropping it.
struct RotatingLogFile: Sendable {
    private let directory: String
    private let levelName: String
    private let rotationSize: UInt64
    private let keptFiles: Int
    private let header: String
    private var descriptor: Int32 = -1
    private var size: UInt64 = 0
    /// The millisecond stamp of the current file's name (names never repeat, even when two
    /// files start within the same millisecond).
    private var stamp: Int64 = 0

    /// The current file's path, nil when it could not be created.
    private(set) var path: String?

    init(directory: String, levelName: String, settings: LogFileConfiguration.Values, header: String) throws {
        self.directory = directory
        self.levelName = levelName
        rotationSize = settings.rotationSize
        keptFiles = settings.keptFiles
        self.header = header
        try purgeOldFiles()
        try start()
    }

    /// Appends one line, rotating afterwards when the file reached its maximum size.
    mutating func appendLine(_ line: String) throws {
        try append(Array(line.utf8))
        if size >= rotationSize {
            closeFile()
            try purgeOldFiles()
            try start()
        }
    }

    mutating func closeFile() {
        if descriptor >= 0 {
            _ = close(descriptor)
            descriptor = -1
        }
    }

    // MARK: Files

    private var prefix: String { "cbl_\(levelName)_" }
    private static let suffix = ".cbllog"

    private mutating func start() throws {
        var next = Int64((Date().timeIntervalSince1970 * 1000).rounded(.down))
        if next <= stamp { next = stamp + 1 }
        var candidate = (directory as NSString).appendingPathComponent("\(prefix)\(next)\(Self.suffix)")
        while FileManager.default.fileExists(atPath: candidate) {
            next += 1
            candidate = (directory as NSString).appendingPathComponent("\(prefix)\(next)\(Self.suffix)")
        }
        let opened = open(candidate, O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_CLOEXEC, 0o644)
        guard opened >= 0 else {
            throw CouchbaseLiteError(.cantOpenFile, "cannot create log file \(candidate): \(String(cString: strerror(errno)))")
        }
        descriptor = opened
        stamp = next
        path = candidate
        size = 0
        do {
            try append(Array("---- \(header) ----\n".utf8))
        } catch {
            closeFile()  // a value has no deinit to close it
            throw error
        }
    }

    private mutating func append(_ bytes: [UInt8]) throws {
        guard descriptor >= 0 else { return }
        var written = 0
        while written < bytes.count {
            let result = bytes[written...].withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            if result < 0 {
                if errno == EINTR { continue }
                throw CouchbaseLiteError(.ioError, "cannot write log file \(path ?? directory): \(String(cString: strerror(errno)))")
            }
            written += result
        }
        size += UInt64(bytes.count)
    }

    /// This level's files in the directory, oldest first (by the stamp in their names).
    func existingFiles() throws -> [String] {
        let names = try FileManager.default.contentsOfDirectory(atPath: directory)
        let stamped: [(Int64, String)] = names.compactMap { name in
            guard name.hasPrefix(prefix), name.hasSuffix(Self.suffix) else { return nil }
            let digits = name.dropFirst(prefix.count).dropLast(Self.suffix.count)
            guard let value = Int64(digits) else { return nil }
            return (value, name)
        }
        return stamped.sorted { $0.0 < $1.0 }.map { (directory as NSString).appendingPathComponent($0.1) }
    }

    /// Deletes the oldest closed files until `keptFiles` remain (called while no file is open).
    private func purgeOldFiles() throws {
        let files = try existingFiles()
        for old in files.dropLast(keptFiles) {
            try FileManager.default.removeItem(atPath: old)
        }
    }
}
