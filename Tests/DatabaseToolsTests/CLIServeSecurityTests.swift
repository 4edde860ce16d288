import Foundation
import Testing
import TestSupport

/// `cblite serve` as issue 37 asks: loopback unless `--host` says otherwise, the password from
/// a file or the environment (never argv, not even the helper's), a warning for credentials
/// over plain ws://.
@Suite(.ownThreads) struct CLIServeSecurityTests {
    /// A served database bundle in `directory`.
    static func database(in directory: TemporaryDirectory) throws -> String {
        let path = directory.url.appendingPathComponent("served.cblite2").path
        let created = try ToolRunner.run("cblite", ["put", path, "doc", #"{"a":1}"#])
        #expect(created.status == 0, "\(created.stderr)")
        return path
    }

    @Test func aPasswordOnTheCommandLineIsRefused() throws {
        try withTemporaryDirectory { directory in
            let path = try Self.database(in: directory)
            let result = try ToolRunner.run("cblite", ["serve", path, "--port", "0", "--user", "u", "--password", "secret"])
            #expect(result.status != 0)
            #expect(result.stderr.contains("CBLITE_PASSWORD"), "\(result.stderr)")
            let missing = try ToolRunner.run("cblite", ["serve", path, "--port", "0", "--user", "u"])
            #expect(missing.status != 0)
            #expect(missing.stderr.contains("needs a password"), "\(missing.stderr)")
        }
    }

    @Test func serveListensOnLoopbackAndTakesThePasswordFromAFile() async throws {
        try await withTemporaryDirectory { directory in
            let path = try Self.database(in: directory)
            let passwordFile = directory.url.appendingPathComponent("password").path
            try Data("s3cret-Pa55\n".utf8).write(to: URL(fileURLWithPath: passwordFile))
            let serve = try CLISignalTests.RunningTool(["serve", path, "--port", "0", "--user", "alice",
                                                        "--password-file", passwordFile])
            let line = try #require(serve.nextLine())
            let port = try #require(URL(string: line)?.port)
            // Nowhere on the helper's command line.
            let commandLine = try String(contentsOfFile: "/proc/\(serve.process.processIdentifier)/cmdline", encoding: .utf8)
            #expect(!commandLine.contains("s3cret"))
            #expect(commandLine.contains("cblite"))
            // Bound to 127.0.0.1 only (/proc/net/tcp: local address 0100007F:PORT, listening).
            let table = try String(contentsOfFile: "/proc/net/tcp", encoding: .utf8)
            let hexPort = String(format: "%04X", port)
            let listening = table.split(separator: "\n").filter { $0.contains(":\(hexPort) ") && $0.contains(" 0A ") }
            #expect(listening.contains { $0.contains("0100007F:\(hexPort)") }, "\(listening)")
            #expect(!listening.contains { $0.contains("00000000:\(hexPort)") }, "\(listening)")
            // The file's password lets a client in; another does not.
            let statuses = try await CLISignalTests.onOwnThread { () -> [String] in
                try ["alice:s3cret-Pa55", "alice:wrong"].map { credentials in
                    let socket = try RawSocket(port: UInt16(port))
                    let header = "Authorization: Basic \(Data(credentials.utf8).base64EncodedString())"
                    return String(try socket.upgrade(database: "served", port: UInt16(port), headers: [header]).prefix(12))
                }
            }
            #expect(statuses == ["HTTP/1.1 101", "HTTP/1.1 401"])
            let ended = serve.stop(with: SIGTERM)
            #expect(ended.status == 0)
            #expect(ended.stderr.contains("warning: serving plain ws:// with --user"), "\(ended.stderr)")
        }
    }
}
