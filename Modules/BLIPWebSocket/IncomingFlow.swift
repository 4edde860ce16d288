import LiteSupport

/// Bytes of received frames handed to a transport's `incoming` and not yet taken by its reader:
/// the frame handler stops reading from the socket while they are over the limit, and the
/// reader starts it again once it has taken them down to half (back-pressure: a peer that
/// sends faster than the connection handles fills its TCP window, not this process's memory).
final class IncomingFlow: Sendable {
    private struct State {
        var bytes = 0
        var paused = false
    }

    /// Where reading pauses.
    let limit: Int
    private let state = Locked(State())

    init(limit: Int) {
        self.limit = max(limit, 1)
    }

    /// Whether the socket must not be read now.
    var isPaused: Bool { state.withLock { $0.paused } }

    /// Counts a frame handed on; returns true when reading must now pause.
    func delivered(_ count: Int) -> Bool {
        state.withLock { state in
            state.bytes += count
            if state.bytes > limit && !state.paused {
                state.paused = true
                return true
            }
            return false
        }
    }

    /// Counts a frame the reader has handled; returns true when reading may resume.
    func taken(_ count: Int) -> Bool {
        state.withLock { state in
            state.bytes -= count
            if state.paused && state.bytes <= limit / 2 {
                state.paused = false
                return true
            }
            return false
        }
    }
}
