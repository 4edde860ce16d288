import Foundation

/// Whole processes, as a user replicates with the command-line tools: `cblite push` of a freshly
/// imported database to `cblite serve` on 127.0.0.1, against `cblite import` (the real 2.8 tool:
/// `cp`) of the same JSON Lines, alternating. Run for our tool, and for Couchbase Lite 2.8's
/// real `cblite` when `CBLITE_REFERENCE` names it, so the push/import ratio of the real
/// replicator can be read beside ours.
struct ToolReplicationBenchmark {
    /// How one tool spells the three steps.
    struct Tool {
        var label: String
        var executable: String
        /// Arguments importing `input` (JSON Lines) into a new database `database`.
        var importArguments: (_ input: String, _ database: String) -> [String]
        /// Arguments serving (and creating) `database` on 127.0.0.1:`port`.
        var serveArguments: (_ database: String, _ port: Int) -> [String]
        /// The input file's name: the real `cp` tells JSON Lines by the `.json` extension.
        var inputName: String

        static func ours(_ executable: String) -> Tool {
            Tool(label: "ours", executable: executable,
                 importArguments: { ["import", $1, $0, "--quiet"] },
                 serveArguments: { ["serve", $0, "--port", "\($1)", "--host", "127.0.0.1"] },
                 inputName: "push.jsonl")
        }

        static func real(_ executable: String) -> Tool {
            Tool(label: "real 2.8", executable: executable,
                 importArguments: { ["cp", $0, $1] },
                 serveArguments: { ["--create", "serve", "--port", "\($1)", $0] },
                 inputName: "push.json")
        }
    }

    /// The median push and import times of one tool.
    struct Result {
        var push: Duration
        var importTime: Duration
    }

    let folder: String
    let lines: String
    let iterations: Int

    /// Pushes a fresh import of `lines` to a fresh served database, `iterations` times,
    /// alternating with timed imports of the same lines.
    func measure(_ tool: Tool) throws -> Result {
        let input = folder + "/" + tool.inputName
        try lines.write(toFile: input, atomically: true, encoding: .utf8)
        let source = folder + "/push-source.cblite2", target = folder + "/push-target.cblite2"
        let imported = folder + "/push-import.cblite2"
        func remove(_ path: String) { try? FileManager.default.removeItem(atPath: path) }  // absent is fine
        var server: pid_t?
        defer { if let server { ChildProcess.stop(server) } }
        var url = ""
        let (push, importTime) = try Stopwatch.pairedMedians(iterations: iterations, prepareOurs: {
            if let running = server { ChildProcess.stop(running) }
            server = nil
            remove(source)
            remove(target)
            // A new source each run: a source that has pushed to this URL has nothing left to send.
            try ChildProcess.run(tool.executable, tool.importArguments(input, source))
            let port = try Self.freePort()
            server = try ChildProcess.start(tool.executable, tool.serveArguments(target, port))
            try Self.waitForListener(port: port)
            url = "ws://127.0.0.1:\(port)/push-target"
        }, prepareBaseline: {
            remove(imported)
        }, ours: {
            try ChildProcess.run(tool.executable, ["push", source, url])
        }, baseline: {
            try ChildProcess.run(tool.executable, tool.importArguments(input, imported))
        })
        return Result(push: push, importTime: importTime)
    }

    /// A TCP port the kernel has just handed out and taken back.
    static func freePort() throws -> Int {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { throw BenchmarkFailure(description: "no socket for a free port") }
        defer { close(socket) }
        var address = loopback(port: 0)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(socket, $0, length) == 0 && getsockname(socket, $0, &length) == 0
            }
        }
        guard bound else { throw BenchmarkFailure(description: "cannot bind a free port") }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// Returns once 127.0.0.1:`port` accepts connections (a listener just started), within 10 s.
    static func waitForListener(port: Int) throws {
        let deadline = ContinuousClock.now + .seconds(10)
        while ContinuousClock.now < deadline {
            let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            guard socket >= 0 else { throw BenchmarkFailure(description: "no socket to reach the listener") }
            var address = loopback(port: port)
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
                }
            }
            close(socket)
            if connected { return }
            usleep(2_000)  // the server process is starting: nothing to wait on but its port
        }
        throw BenchmarkFailure(description: "no listener on 127.0.0.1:\(port) after 10 s")
    }

    private static func loopback(port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        return address
    }
}
