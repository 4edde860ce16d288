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

    /// The times of ``pairedTimes(iterations:prepareOurs:prepareBaseline:settleOurs:ours:baseline:)``,
    /// in run order: `ours[i]` and `baseline[i]` ran back to back.
    struct PairedTimes {
        var ours: [Duration] = []
        var baseline: [Duration] = []

        var medians: (Duration, Duration) { (Self.median(ours), Self.median(baseline)) }

        /// Each pair's ratio (ours / baseline), ascending: how far one pair can stray from the
        /// ratio of the medians when the machine's speed changes within a run.
        var pairRatios: [Double] {
            zip(ours, baseline).map { $0.seconds / max($1.seconds, 1e-12) }.sorted()
        }

        /// "1.21–1.64× (pairs)" for a note.
        var pairRatioSpread: String {
            let ratios = pairRatios
            guard let low = ratios.first, let high = ratios.last else { return "–" }
            return String(format: "%.2f–%.2f×", low, high)
        }

        private static func median(_ times: [Duration]) -> Duration {
            let sorted = times.sorted()
            return sorted.isEmpty ? .zero : sorted[sorted.count / 2]
        }
    }

    /// Times `ours` and `baseline` alternately, so that a busy spell of the machine hits both
    /// alike, and returns each one's median. `prepareOurs`/`prepareBaseline` run untimed before
    /// each timed run (e.g. to create an empty database).
    /// `settleOurs` runs untimed after each of ours (e.g. to let a background checkpoint finish
    /// before the baseline is timed).
    static func pairedMedians(iterations: Int, prepareOurs: () throws -> Void = {},
                              prepareBaseline: () throws -> Void = {}, settleOurs: () throws -> Void = {},
                              ours: () throws -> Void, baseline: () throws -> Void) rethrows -> (Duration, Duration) {
        try pairedTimes(iterations: iterations, prepareOurs: prepareOurs, prepareBaseline: prepareBaseline,
                        settleOurs: settleOurs, ours: ours, baseline: baseline).medians
    }

    /// As ``pairedTimes(iterations:prepareOurs:prepareBaseline:settleOurs:ours:baseline:)``, for a
    /// baseline that times itself (a child process reporting its own time, so that the pipe's
    /// round trip is not counted).
    static func pairedTimes(iterations: Int, prepareOurs: () throws -> Void = {}, prepareBaseline: () throws -> Void = {},
                            ours: () throws -> Void, selfTimedBaseline: () throws -> Duration) rethrows -> PairedTimes {
        var times = PairedTimes()
        for round in 0..<max(1, iterations) {
            let oursFirst = round.isMultiple(of: 2)
            if !oursFirst {
                try prepareBaseline()
                times.baseline.append(try selfTimedBaseline())
            }
            try prepareOurs()
            times.ours.append(try median(iterations: 1, ours))
            if oursFirst {
                try prepareBaseline()
                times.baseline.append(try selfTimedBaseline())
            }
        }
        return times
    }

    /// As ``pairedMedians(iterations:prepareOurs:prepareBaseline:settleOurs:ours:baseline:)``,
    /// keeping every time.
    static func pairedTimes(iterations: Int, prepareOurs: () throws -> Void = {},
                            prepareBaseline: () throws -> Void = {}, settleOurs: () throws -> Void = {},
                            ours: () throws -> Void, baseline: () throws -> Void) rethrows -> PairedTimes {
        var times = PairedTimes()
        func runOurs() throws {
            try prepareOurs()
            times.ours.append(try median(iterations: 1, ours))
            try settleOurs()
        }
        func runBaseline() throws {
            try prepareBaseline()
            times.baseline.append(try median(iterations: 1, baseline))
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
        return times
    }
}
