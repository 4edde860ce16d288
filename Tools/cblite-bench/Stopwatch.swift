/// Times a piece of work several times and keeps the median, so one slow run (a page-cache
/// miss, the other core busy) does not decide the figure.
enum Stopwatch {
    /// The median wall time of `iterations` runs of `body`, after `setup` prepares each run
    /// (setup time is not counted).
    static func median<State>(
        iterations: Int,
        setup: () throws -> State,
        _ body: (inout State) throws -> Void
    ) rethrows -> Duration {
        let clock = ContinuousClock()
        var times: [Duration] = []
        for _ in 0..<max(1, iterations) {
            var state = try setup()
            let start = clock.now
            try body(&state)
            times.append(clock.now - start)
        }
        times.sort()
        return times[times.count / 2]
    }

    /// The median wall time of `iterations` runs of `body`.
    static func median(iterations: Int, _ body: () throws -> Void) rethrows -> Duration {
        try median(iterations: iterations, setup: {}) { _ in try body() }
    }
}
