import Foundation

/// Runs a program to completion with `posix_spawn` and `wait4`, so the benchmark gets the
/// child's own resource usage (peak resident memory), which `Process` does not report.
enum ChildProcess {
    struct Usage {
        /// The child's peak resident set, bytes.
        var peakResident: Int
    }

    /// Starts `executable` with `arguments` and returns without waiting (a server, stopped with
    /// ``stop(_:)``); its standard streams go to /dev/null.
    static func start(_ executable: String, _ arguments: [String]) throws -> pid_t {
        try spawn(executable, arguments, stdin: nil, stdout: nil)
    }

    /// Sends SIGTERM to a child from ``start(_:_:)`` and waits for it to end.
    static func stop(_ pid: pid_t) {
        kill(pid, SIGTERM)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
    }

    private static func spawn(_ executable: String, _ arguments: [String], stdin: String?, stdout: String?) throws -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, stdin ?? "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, stdout ?? "/dev/null", O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var pid: pid_t = 0
        let started = posix_spawn(&pid, executable, &actions, nil, argv, environ)
        guard started == 0 else {
            throw BenchmarkFailure(description: "cannot start \(executable): \(String(cString: strerror(started)))")
        }
        return pid
    }

    /// Runs `executable` with `arguments`; standard input from `stdin`, standard output to
    /// `stdout` (created or truncated), else /dev/null; standard error to /dev/null.
    /// - Throws: `BenchmarkFailure` when it cannot start or exits with a status other than 0.
    @discardableResult
    static func run(_ executable: String, _ arguments: [String], stdin: String? = nil,
                    stdout: String? = nil) throws -> Usage {
        let pid = try spawn(executable, arguments, stdin: stdin, stdout: stdout)
        var status: Int32 = 0
        var usage = rusage()
        while wait4(pid, &status, 0, &usage) < 0 {
            guard errno == EINTR else { throw BenchmarkFailure(description: "wait4 failed for \(executable)") }
        }
        // WIFEXITED and WEXITSTATUS, spelled out (the macros are not visible to Swift).
        guard status & 0x7F == 0, (status >> 8) & 0xFF == 0 else {
            throw BenchmarkFailure(description: "\(executable) \(arguments.joined(separator: " ")) failed (status \(status))")
        }
        return Usage(peakResident: usage.ru_maxrss * 1024)
    }
}
