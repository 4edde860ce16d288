import Foundation
import Testing

/// Runs the built `cblite` and `cblite-convert` executables, which SwiftPM puts next to the
/// test bundle in the build folder.
struct ToolRunner {
    /// What a run printed and returned.
    struct Result {
        var status: Int32
        var stdout: Data
        var stderr: String
        var output: String { String(decoding: stdout, as: UTF8.self) }
        var lines: [String] { output.split(separator: "\n").map(String.init) }
    }

    /// The build folder holding the executables.
    static let productsDirectory: URL? = {
        var candidates = [URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent(),
                          Bundle.main.bundleURL, Bundle.main.bundleURL.deletingLastPathComponent()]
        for bundle in Bundle.allBundles where bundle.bundlePath.hasSuffix(".xctest") {
            candidates.append(bundle.bundleURL.deletingLastPathComponent())
        }
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0.appendingPathComponent("cblite").path) }
    }()

    /// Runs `tool` (a built product, or with `absolute` any program's path) with `arguments` in
    /// `directory`, feeding `input` to stdin.
    static func run(_ tool: String, _ arguments: [String], in directory: URL? = nil,
                    input: Data? = nil, absolute: Bool = false,
                    environment: [String: String] = [:]) throws -> Result {
        let process = Process()
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        }
        if absolute {
            process.executableURL = URL(fileURLWithPath: tool)
        } else {
            let folder = try #require(productsDirectory, "build the executables first: swift build --build-tests")
            process.executableURL = folder.appendingPathComponent(tool)
        }
        process.arguments = arguments
        if let directory { process.currentDirectoryURL = directory }
        let out = Pipe(), err = Pipe(), stdin = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = stdin
        try process.run()
        if let input { stdin.fileHandleForWriting.write(input) }
        try stdin.fileHandleForWriting.close()
        // Read both pipes before waiting, so a full pipe cannot stall the child.
        let errReader = PipeReader(err.fileHandleForReading)
        let stdout = out.fileHandleForReading.readDataToEndOfFile()
        let stderr = errReader.wait()
        process.waitUntilExit()
        return Result(status: process.terminationStatus, stdout: stdout,
                      stderr: String(decoding: stderr, as: UTF8.self))
    }

    /// Runs `cblite`.
    static func cblite(_ arguments: String..., in directory: URL? = nil, input: Data? = nil) throws -> Result {
        try run("cblite", arguments, in: directory, input: input)
    }

    /// Runs `cblite-convert`.
    static func convert(_ arguments: String..., in directory: URL? = nil) throws -> Result {
        try run("cblite-convert", arguments, in: directory)
    }
}
