import CouchbaseLiteSwift
import DatabaseConversion
import DatabaseTools
import Foundation
import LiteDatabase
import Testing
import TestSupport

/// An in-place conversion and the opens of its database exclude each other across processes:
/// an open waits for a running conversion (it used to delete the copy being built), and a
/// conversion refuses a database another process has open.
@Suite(.ownThreads) struct ConversionLockTests {
    private enum Variable {
        static let bundle = "CBL_CONVERSION_CHILD_BUNDLE"
        static let target = "CBL_CONVERSION_CHILD_TARGET"
    }

    /// What the child prints once it holds the lock mid-copy; it then waits for a line on
    /// standard input before it goes on.
    private static let pausedToken = "CBL-CONVERSION-CHILD-PAUSED"
    /// The child's exit status when the conversion is refused as busy.
    private static let busyStatus: Int32 = 75

    static var isChild: Bool { ProcessInfo.processInfo.environment[Variable.bundle] != nil }

    private static func config(_ directory: TemporaryDirectory, _ engine: StorageEngine?) -> DatabaseConfiguration {
        let config = DatabaseConfiguration()
        config.directory = directory.path
        config.storageEngine = engine
        return config
    }

    private static func makeDatabase(in directory: TemporaryDirectory) throws {
        let database = try Database(name: "app", config: config(directory, .sqlite))
        defer { try? database.close() }
        try database.inBatch {
            for index in 0..<200 {
                try database.saveDocument(MutableDocument(id: "doc-\(index)", data: ["n": index]))
            }
        }
    }

    private static func child(bundle: String, target: String) -> (Process, Pipe, Pipe) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        process.arguments = ["--testing-library", "swift-testing", "--filter", "conversionChild"]
        var environment = ProcessInfo.processInfo.environment
        environment[Variable.bundle] = bundle
        environment[Variable.target] = target
        process.environment = environment
        let output = Pipe(), input = Pipe()
        process.standardOutput = output
        process.standardInput = input
        process.standardError = FileHandle.nullDevice
        return (process, output, input)
    }

    /// Reads the child's output until `token` (true) or end of file (false).
    private static func waitFor(_ token: String, in output: Pipe) -> Bool {
        var seen = Data()
        while seen.range(of: Data(token.utf8)) == nil {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { return false }
            seen.append(chunk)
        }
        return true
    }

    @Test func anOpenDuringAConversionInAnotherProcessWaitsForIt() throws {
        try withTemporaryDirectory { directory in
            try Self.makeDatabase(in: directory)
            let bundle = DatabaseBundle(name: "app", directory: directory.path).path
            let (process, output, input) = Self.child(bundle: bundle, target: "RocksDB")
            try process.run()
            #expect(Self.waitFor(Self.pausedToken, in: output), "the child must pause mid-conversion")

            // The open starts while the child holds the bundle mid-copy; it must not touch the
            // half-built copy and must see the converted database once the child is done.
            let opened = startThread { () throws -> (UInt64, Bool) in
                let database = try Database(name: "app", config: Self.config(directory, nil))
                defer { try? database.close() }
                return (database.count, database.storageEngine == .rocksdb)
            }
            #expect(try BundleLock.exclusive(bundlePath: bundle, wait: false) == nil)
            input.fileHandleForWriting.write(Data("go\n".utf8))
            process.waitUntilExit()
            #expect(process.terminationStatus == 0)
            let (count, isRocksDB) = try opened.wait()
            #expect(count == 200)
            #expect(isRocksDB)
        }
    }

    @Test func aConversionRefusesADatabaseOpenInAnotherProcess() throws {
        try withTemporaryDirectory { directory in
            try Self.makeDatabase(in: directory)
            let database = try Database(name: "app", config: Self.config(directory, nil))
            defer { try? database.close() }
            let bundle = DatabaseBundle(name: "app", directory: directory.path).path
            let (process, _, input) = Self.child(bundle: bundle, target: "RocksDB")
            try process.run()
            input.fileHandleForWriting.write(Data("go\n".utf8))
            process.waitUntilExit()
            #expect(process.terminationStatus == Self.busyStatus)
            #expect(database.storageEngine == .sqlite)
            #expect(database.count == 200)
            #expect(database.document(withID: "doc-199")?.int(forKey: "n") == 199)
        }
    }

    /// Runs in the child process only: converts the bundle named by the environment, pausing
    /// mid-copy until the parent writes a line.
    @Test(.enabled(if: ConversionLockTests.isChild))
    func conversionChild() throws {
        let environment = ProcessInfo.processInfo.environment
        let bundle = try #require(environment[Variable.bundle])
        let registry = DatabaseLocation.registry
        let targetName = try #require(environment[Variable.target])
        let target = try #require(registry.engine(named: targetName))
        do {
            try InPlaceConversion.convert(bundlePath: bundle, to: target, registry: registry) { step in
                guard step == .copying else { return }
                FileHandle.standardOutput.write(Data("\(Self.pausedToken)\n".utf8))
                _ = readLine()
            }
        } catch let error as DatabaseToolsError where error.code == .busy {
            exit(Self.busyStatus)
        }
        exit(0)
    }
}
