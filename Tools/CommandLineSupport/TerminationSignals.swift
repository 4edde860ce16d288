import Dispatch
import Glibc

/// Turns SIGINT and SIGTERM into an event a long-running command can wait for, so that
/// `cblite serve` and a continuous `cblite push/pull/sync` stop cleanly (listener closed,
/// database closed) when interrupted or terminated.
///
/// On Linux a signal set to `SIG_IGN` is discarded by the kernel before any signal source can
/// see it, and an unblocked signal goes to whichever thread the kernel picks (SwiftNIO's, the
/// concurrency pool's), so a real handler is installed: it only writes the signal number to a
/// pipe (which is async-signal-safe), and a waiting thread reads the pipe.
///
/// ```swift
/// let signals = try TerminationSignals.install()
/// let number = signals.wait()   // blocks until SIGINT or SIGTERM
/// ```
package final class TerminationSignals: Sendable {
    /// The signals caught.
    package static let caught: [Int32] = [SIGINT, SIGTERM]

    private let readEnd: Int32

    private init(readEnd: Int32) {
        self.readEnd = readEnd
    }

    /// Installs the handlers (once per process; later calls return the same catcher).
    package static func install() throws -> TerminationSignals {
        try installation.get()
    }

    private static let installation: Swift.Result<TerminationSignals, SignalInstallError> = {
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { return .failure(SignalInstallError(errno: errno)) }
        // The handler must never block: a full pipe drops the byte (one is enough to wake the waiter).
        _ = fcntl(ends[1], F_SETFL, fcntl(ends[1], F_GETFL) | O_NONBLOCK)
        _ = fcntl(ends[0], F_SETFD, FD_CLOEXEC)
        _ = fcntl(ends[1], F_SETFD, FD_CLOEXEC)
        signalPipeWriteEnd = ends[1]
        for number in caught {
            var action = sigaction()
            action.__sigaction_handler.sa_handler = { number in
                var byte = UInt8(truncatingIfNeeded: number)
                _ = write(signalPipeWriteEnd, &byte, 1)
            }
            sigemptyset(&action.sa_mask)
            action.sa_flags = SA_RESTART
            guard sigaction(number, &action, nil) == 0 else { return .failure(SignalInstallError(errno: errno)) }
        }
        // A parent may have started us with these signals blocked (a mask is inherited across
        // exec, and thread pools block most signals); threads started from here on inherit this.
        var unblocked = sigset_t()
        sigemptyset(&unblocked)
        for number in caught { sigaddset(&unblocked, number) }
        pthread_sigmask(SIG_UNBLOCK, &unblocked, nil)
        return .success(TerminationSignals(readEnd: ends[0]))
    }()

    /// Blocks the calling thread until SIGINT or SIGTERM arrives; returns its number.
    package func wait() -> Int32 {
        var byte: UInt8 = 0
        while true {
            let count = read(readEnd, &byte, 1)
            if count == 1 { return Int32(byte) }
            if count < 0 && errno == EINTR { continue }
            // The pipe cannot close while the process runs; treat anything else as a termination.
            return SIGTERM
        }
    }

    /// Calls `handler` on a thread of its own at the first SIGINT or SIGTERM.
    package func onSignal(_ handler: @escaping @Sendable (Int32) -> Void) {
        // A queue of its own: the wait holds its thread until the signal comes.
        DispatchQueue(label: "cblite.termination-signals").async { [self] in handler(wait()) }
    }
}

/// Why the signal handlers could not be installed.
package struct SignalInstallError: Error, CustomStringConvertible {
    /// The `errno` of the failed call.
    package let errno: Int32

    package var description: String {
        "cannot install the SIGINT/SIGTERM handlers: \(String(cString: strerror(errno)))"
    }
}

/// Written once before the handlers are installed, then only read (by the handler).
nonisolated(unsafe) private var signalPipeWriteEnd: Int32 = -1
