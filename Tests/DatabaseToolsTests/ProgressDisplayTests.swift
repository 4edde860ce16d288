import DatabaseTools
import Testing
import TestSupport

/// Progress text: a bar with rate and ETA, periodic plain lines, or nothing.
@Suite(.ownThreads) struct ProgressDisplayTests {
    /// A clock the test moves by hand.
    final class Clock {
        var seconds = 0.0
    }

    private func record(_ style: ProgressDisplay.Style, clock: Clock) -> (ProgressDisplay, () -> [String]) {
        var output: [String] = []
        let display = ProgressDisplay(style: style, now: { clock.seconds }) { output.append($0) }
        return (display, { output })
    }

    @Test func barShowsPercentRateAndETA() {
        let clock = Clock()
        let (display, output) = record(.bar, clock: clock)
        display.update(ConversionProgress(phase: .records, completed: 0, total: 1_000))
        clock.seconds = 2
        display.update(ConversionProgress(phase: .records, completed: 400, total: 1_000))
        #expect(output().last == "\rrecords [#########---------------]  40%  400/1000  200/s  ETA 0:03")
    }

    @Test func plainLinesAreThrottledButTheLastIsAlwaysShown() {
        let clock = Clock()
        let (display, output) = record(.lines, clock: clock)
        display.update(ConversionProgress(phase: .records, completed: 0, total: 100))
        clock.seconds = 0.5
        display.update(ConversionProgress(phase: .records, completed: 10, total: 100))
        clock.seconds = 1
        display.update(ConversionProgress(phase: .records, completed: 100, total: 100))
        #expect(output() == ["records:   0%  0/100\n", "records: 100%  100/100  100/s\n"])
        #expect(!output().joined().contains("\r"))
    }

    @Test func quietShowsNothing() {
        let clock = Clock()
        let (display, output) = record(.quiet, clock: clock)
        display.update(ConversionProgress(phase: .blobs, completed: 5, total: 5))
        display.finish()
        #expect(output().isEmpty)
    }

    @Test func newPhaseEndsTheBarLine() {
        let clock = Clock()
        let (display, output) = record(.bar, clock: clock)
        display.update(ConversionProgress(phase: .records, completed: 1, total: 1))
        display.update(ConversionProgress(phase: .blobs, completed: 1, total: 1))
        display.finish()
        #expect(output().filter { $0 == "\n" }.count == 2)
        #expect(output().contains { $0.hasPrefix("\rblobs [") })
    }
}
