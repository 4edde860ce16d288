@testable import CouchbaseLiteSwift
import Dispatch
import Foundation
import Testing
import TestSupport

/// `cblite serve` and a continuous `cblite push` stop cleanly on SIGINT and SIGTERM: exit 0,
/// listener or replicator stopped, database closed (another process can open it).
@Suite(.ownThreads) struct CLISignalTests {
    /// A started `cblite` whose stdout is read line by line.
    final class RunningTool: @unchecked Sendable {
        // @unchecked: `process` and the pipe are set up in init and only read afterwards.
        let process = Process()
        private let output = Pipe()
        private let errors = Pipe()
        private let errorReader: PipeReader

        init(_ arguments: [String]) throws {
            process.executableURL = try #require(ToolRunner.productsDirectory).appendingPathComponent("cblite")
            process.arguments = arguments
            process.standardOutput = output
            process.standardError = errors
            process.standardInput = FileHandle.nullDevice
            try process.run()
            errorReader = PipeReader(errors.fileHandleForReading)
        }

        /// The next line the tool prints (nil at the end of its output).
        func nextLine() -> String? {
            var line = Data()
            while true {
                let byte = output.fileHandleForReading.readData(ofLength: 1)
                if byte.isEmpty { return line.isEmpty ? nil : String(decoding: line, as: UTF8.self) }
                if byte.first == UInt8(ascii: "\n") { return String(decoding: line, as: UTF8.self) }
                line.append(byte)
            }
        }

        /// Sends `signal`, then waits for the exit; the rest of stdout and all of stderr.
        func stop(with signal: Int32) -> (status: Int32, reason: Process.TerminationReason, rest: String, stderr: String) {
            kill(process.processIdentifier, signal)
            // A guard, not a wait: a tool that ignores the signal is killed and the test fails.
            let pid = process.processIdentifier
            DispatchQueue.global().asyncAfter(deadline: .now() + 60) { [process] in
                if process.isRunning { kill(pid, SIGKILL) }
            }
            let rest = output.fileHandleForReading.readDataToEndOfFile()
            let stderr = errorReader.wait()
            process.waitUntilExit()
            return (process.terminationStatus, process.terminationReason,
                    String(decoding: rest, as: UTF8.self), String(decoding: stderr, as: UTF8.self))
        }
    }

    static func onOwnThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread { continuation.resume(with: Swift.Result { try body() }) }
        }
    }

    @Test(arguments: [SIGINT, SIGTERM])
    func serveStopsCleanly(signal: Int32) async throws {
        let directory = try TemporaryDirectory()
        defer { withExtendedLifetime(directory) {} }
        let config = DatabaseConfiguration()
        config.directory = directory.path
        try Database(name: "served", config: config).close()
        let path = directory.appending("served.cblite2").path

        let result = try await Self.onOwnThread {
            let serve = try RunningTool(["serve", path, "--port", "0", "--host", "127.0.0.1"])
            let url = serve.nextLine()
            return (url, serve.stop(with: signal))
        }
        #expect(result.0?.hasPrefix("ws://127.0.0.1:") == true, "no URL printed: \(result.1.stderr)")
        #expect(result.1.reason == .exit && result.1.status == 0,
                "serve ended by \(result.1.reason) \(result.1.status): \(result.1.stderr)")
        // Closed: the database opens again here.
        try Database(name: "served", config: config).close()
    }

    @Test func continuousPushStopsCleanlyOnInterrupt() async throws {
        let directory = try TemporaryDirectory()
        defer { withExtendedLifetime(directory) {} }
        let config = DatabaseConfiguration()
        config.directory = directory.path
        let source = try Database(name: "source", config: config)
        try source.saveDocument(MutableDocument(id: "greeting", data: ["text": "hello"]))
        try source.close()

        let server = try Database(name: "server", config: config)
        defer { try? server.close() }  // allowed: the checks already ran
        let arrived = DispatchSemaphore(value: 0)
        let token = server.addDocumentChangeListener(withID: "greeting") { _ in arrived.signal() }
        defer { server.removeChangeListener(withToken: token) }
        var listenerConfig = URLEndpointListenerConfiguration(database: server)
        listenerConfig.disableTLS = true
        listenerConfig.networkInterface = "127.0.0.1"
        let listener = URLEndpointListener(config: listenerConfig)
        try await listener.start()
        let url = try #require(listener.urls.first).absoluteString
        let sourcePath = directory.appending("source.cblite2").path

        let stopped = try await Self.onOwnThread {
            let push = try RunningTool(["push", sourcePath, url, "--continuous"])
            // Bounded: a push that never arrives fails the test instead of hanging it.
            let delivered = arrived.wait(timeout: .now() + 180) == .success
            return (delivered, push.stop(with: SIGINT))
        }
        await listener.stop()
        #expect(stopped.0, "the continuous push delivered nothing")
        #expect(stopped.1.reason == .exit && stopped.1.status == 0,
                "push ended by \(stopped.1.reason) \(stopped.1.status): \(stopped.1.stderr)")
        // The count is 0 or 1: the interrupt may come before the server's reply is heard (a
        // restart would then find the revision already there).
        let counts = stopped.1.rest.split(separator: "\n").last.map(String.init) ?? ""
        #expect(["0 pushed, 0 pulled, 0 failed", "1 pushed, 0 pulled, 0 failed"].contains(counts), "\(counts)")
        #expect(server.document(withID: "greeting")?.string(forKey: "text") == "hello")
        try Database(name: "source", config: config).close()
    }
}
