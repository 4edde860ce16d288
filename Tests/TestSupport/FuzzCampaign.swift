import Foundation

/// One decoder's fuzz run: a fixed number of seeded inputs in `make test`, or, in the long mode
/// (`FUZZ_SECONDS=600`), new inputs until that many seconds have passed. Every input gets its
/// own generator derived from the seed and its number, so a failure names a reproducible input.
///
/// ```swift
/// let report = try FuzzCampaign.run("BLIP properties", seed: 7, inputs: 4000) { random in
///     let input = FuzzMutator.mutate(seedBytes, &random)
///     do { _ = try BLIPProperties.decode(from: input); return .accepted }
///     catch is BLIPError { return .rejected }
/// }
/// #expect(report.slowest < FuzzCampaign.perInputLimit)
/// ```
package struct FuzzCampaign: Sendable, CustomStringConvertible {
    /// What the decoder did with one input.
    package enum Outcome: Sendable {
        /// The input decoded (and whatever the test did with the result worked).
        case accepted
        /// The decoder refused the input with its module's error.
        case rejected
    }

    /// The longest one input may take before the test calls it a hang: 2 s, stretched by
    /// ``TestTimeScale`` under the sanitizer.
    package static var perInputLimit: Duration { TestTimeScale.scaled(.seconds(2)) }

    /// The long mode's duration in seconds: `FUZZ_SECONDS`, or a suite's older variable
    /// (`FLEECE_FUZZ_SECONDS`) when given; nil in the normal, bounded mode.
    package static func longModeSeconds(legacyVariable: String? = nil) -> Double? {
        let environment = ProcessInfo.processInfo.environment
        for name in ["FUZZ_SECONDS", legacyVariable].compactMap({ $0 }) {
            if let text = environment[name], let seconds = Double(text), seconds > 0 { return seconds }
        }
        return nil
    }

    /// The decoder's name, for the report.
    package let name: String
    /// Inputs tried.
    package private(set) var inputs = 0
    /// Inputs the decoder accepted.
    package private(set) var accepted = 0
    /// Inputs the decoder refused with an error.
    package private(set) var rejected = 0
    /// The slowest input's time, and its number (rerun it with `SplitMix64(seed:)` of
    /// ``inputSeed(_:_:)``). A synchronous campaign counts the CPU time of its thread, so that
    /// other work on a busy machine is not taken for a slow input; an async one, whose input
    /// may move between threads, counts wall-clock time.
    package private(set) var slowest: Duration = .zero
    /// The number of the slowest input.
    package private(set) var slowestInput = 0
    /// Wall-clock time of the whole run.
    package private(set) var elapsed: Duration = .zero
    /// Whether this was a long-mode run.
    package let isLongMode: Bool

    /// The generator seed of input `number` of a campaign seeded with `seed`.
    package static func inputSeed(_ seed: UInt64, _ number: Int) -> UInt64 {
        seed ^ (UInt64(number) &* 0x9E37_79B9_7F4A_7C15)
    }

    private let seed: UInt64
    private let count: Int
    private let started: ContinuousClock.Instant
    private let deadline: ContinuousClock.Instant?

    private init(name: String, seed: UInt64, count: Int, longSeconds: Double?) {
        self.name = name
        self.seed = seed
        self.count = count
        isLongMode = longSeconds != nil
        let now = ContinuousClock().now
        started = now
        deadline = longSeconds.map { now + .milliseconds(Int($0 * 1000)) }
    }

    /// The next input's number and generator, or nil when the run is over.
    private func nextInput() -> (number: Int, random: SplitMix64)? {
        guard deadline.map({ ContinuousClock().now < $0 }) ?? (inputs < count) else { return nil }
        return (inputs, SplitMix64(seed: Self.inputSeed(seed, inputs)))
    }

    /// Runs `inputs` inputs (or, in the long mode, inputs for `FUZZ_SECONDS`) through `body`.
    package static func run(_ name: String, seed: UInt64, inputs count: Int, legacyVariable: String? = nil,
                            _ body: (inout SplitMix64) throws -> Outcome) rethrows -> FuzzCampaign {
        var campaign = FuzzCampaign(name: name, seed: seed, count: count,
                                    longSeconds: longModeSeconds(legacyVariable: legacyVariable))
        while let input = campaign.nextInput() {
            var random = input.random
            let inputStart = threadCPUTime()
            campaign.record(try body(&random), number: input.number, took: threadCPUTime() - inputStart)
        }
        campaign.finish()
        return campaign
    }

    /// CPU time the calling thread has used.
    private static func threadCPUTime() -> Duration {
        var time = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
        return .seconds(time.tv_sec) + .nanoseconds(time.tv_nsec)
    }

    /// As ``run(_:seed:inputs:legacyVariable:_:)``, for decoders reached through async code.
    package static func run(_ name: String, seed: UInt64, inputs count: Int,
                            _ body: (inout SplitMix64) async throws -> Outcome) async rethrows -> FuzzCampaign {
        var campaign = FuzzCampaign(name: name, seed: seed, count: count, longSeconds: longModeSeconds())
        while let input = campaign.nextInput() {
            var random = input.random
            let inputStart = ContinuousClock().now
            campaign.record(try await body(&random), number: input.number, took: ContinuousClock().now - inputStart)
        }
        campaign.finish()
        return campaign
    }

    private mutating func finish() {
        elapsed = ContinuousClock().now - started
        publish()
    }

    private mutating func record(_ outcome: Outcome, number: Int, took: Duration) {
        inputs += 1
        switch outcome {
        case .accepted: accepted += 1
        case .rejected: rejected += 1
        }
        if took > slowest {
            slowest = took
            slowestInput = number
        }
    }

    /// Inputs per second.
    package var rate: Double {
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        return seconds > 0 ? Double(inputs) / seconds : 0
    }

    /// One line for the log and docs/reliability.md.
    package var description: String {
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        let slowestMilliseconds = Double(slowest.components.seconds) * 1000 + Double(slowest.components.attoseconds) / 1e15
        let peak = ProcessMemory.peakResidentBytes().map { " peak RSS \($0 >> 20) MiB," } ?? ""
        return "fuzz \(name)\(isLongMode ? " (long)" : ""): \(inputs) inputs in \(String(format: "%.1f", seconds)) s "
            + "(\(Int(rate))/s), \(accepted) accepted, \(rejected) rejected, slowest "
            + "\(String(format: "%.1f", slowestMilliseconds)) ms (input #\(slowestInput)),\(peak) 0 crashes"
    }

    /// Prints the report line, and appends it to `$FUZZ_REPORT` when that names a file (one
    /// `O_APPEND` write, so fuzzers finishing together do not overwrite each other's line).
    private func publish() {
        print(description)
        guard let path = ProcessInfo.processInfo.environment["FUZZ_REPORT"], !path.isEmpty else { return }
        let descriptor = open(path, O_WRONLY | O_CREAT | O_APPEND, 0o644)
        guard descriptor >= 0 else { return }
        defer { close(descriptor) }
        let line = Array((description + "\n").utf8)
        _ = line.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
    }
}
