import Foundation
import Glibc
import Testing
import TestSupport

/// A running `database-crash-writer`, whose `committed <n>` lines are read from its output, and
/// which a crash test kills with SIGKILL.
struct CrashWriterProcess {
    private let process = Process()
    private let errorReader: PipeReader
    /// Its standard output, as commit lines.
    var lines: CommitLineReader

    /// Starts the writer with `arguments` (workload, engine, directory…).
    init(_ arguments: [String]) throws {
        process.executableURL = try #require(ToolRunner.productsDirectory).appendingPathComponent("database-crash-writer")
        process.arguments = arguments
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        errorReader = PipeReader(errors.fileHandleForReading)
        try process.run()
        lines = CommitLineReader(output.fileHandleForReading)
    }

    /// Kills the writer with SIGKILL and waits for it; expects that it was still running and
    /// died of the signal (`note` is added to the message when it was not).
    func kill(note: String = "", sourceLocation: SourceLocation = #_sourceLocation) {
        let running = process.isRunning
        Glibc.kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        let stderr = String(decoding: errorReader.wait(), as: UTF8.self)
        #expect(running, "the writer stopped by itself\(note): \(stderr)", sourceLocation: sourceLocation)
        #expect(process.terminationReason == .uncaughtSignal, sourceLocation: sourceLocation)
    }
}
