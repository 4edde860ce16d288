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

    /// Times `ours` and `baseline` alternately, so that a busy spell of the machine hits both
    /// alike, and returns each one's median. `prepareOurs`/`prepareBaseline` run untimed before
    /// each timed run (e.g. to create an empty database).
    /// `settleOurs` runs untimed after each of ours (e.g. to let a background checkpoint finish
    /// before the baseline is timed).
    static func pairedMedians(iterations: Int, prepareOurs: () throws -> Void = {},
                              prepareBaseline: () throws -> Void = {}, settleOurs: () throws -> Void = {},
                              ours: () throws -> Void, baseline: () throws -> Void) rethrows -> (Duration, Duration) {
        var oursTimes: [Duration] = []
        var baselineTimes: [Duration] = []
        func runOurs() throws {
            try prepareOurs()
            oursTimes.append(try median(iterations: 1, ours))
            try settleOurs()
        }
        func runBaseline() throws {
            try prepareBaseline()
            baselineTimes.append(try median(iterations: 1, baseline))
        }
        // The order alternates too: whichever runs first in a pair was seen to run slower.
        for round in 0..<max(1, iterations) {
            if round.isMultiple(of: 2) {
                try runOurs()
                try runBaseline()
            } else {
                try runBaseline()
                try runOurs()
            }
        }
        return (oursTimes.sorted()[oursTimes.count / 2], baselineTimes.sorted()[baselineTimes.count / 2])
    }
}
