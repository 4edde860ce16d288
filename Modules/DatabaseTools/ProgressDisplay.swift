import FoundationEssentials

/// Turns ``ConversionProgress`` updates into text: on a terminal a bar redrawn in place with
/// rate and ETA; otherwise a plain line at most every ``plainInterval`` seconds and at the end
/// of each phase; nothing when quiet. The caller decides where text goes (stderr).
///
/// ```swift
/// let display = ProgressDisplay(style: isatty(2) != 0 ? .bar : .lines) { StandardStreams.writeError($0) }
/// try EngineConverter.convert(…, progress: display.update)
/// display.finish()
/// ```
package final class ProgressDisplay {
    /// How progress is shown.
    package enum Style: Sendable {
        /// A bar redrawn with `\r` (for a terminal).
        case bar
        /// Periodic plain lines (for a log or pipe).
        case lines
        /// Nothing.
        case quiet
    }

    /// Seconds between plain lines.
    package static let plainInterval = 2.0

    private let style: Style
    private let output: (String) -> Void
    private let now: () -> Double
    private var phase: ConversionProgress.Phase?
    private var phaseStart = 0.0
    private var lastOutput = -Double.infinity
    private var barShown = false

    /// Makes a display writing through `output`; `now` gives seconds (injectable for tests).
    package init(style: Style, now: @escaping () -> Double = { Date().timeIntervalSinceReferenceDate },
                 output: @escaping (String) -> Void) {
        self.style = style
        self.output = output
        self.now = now
    }

    /// Shows a progress update.
    package func update(_ progress: ConversionProgress) {
        guard style != .quiet else { return }
        let time = now()
        if progress.phase != phase {
            if barShown { output("\n") }
            barShown = false
            phase = progress.phase
            phaseStart = time
            lastOutput = -Double.infinity
        }
        let finished = progress.total > 0 && progress.completed >= progress.total
        switch style {
        case .bar:
            guard finished || time - lastOutput >= 0.1 else { return }
            output("\r" + barLine(progress, elapsed: time - phaseStart))
            barShown = true
        case .lines:
            guard finished || time - lastOutput >= Self.plainInterval else { return }
            output(plainLine(progress, elapsed: time - phaseStart) + "\n")
        case .quiet:
            return
        }
        lastOutput = time
    }

    /// Ends the display (moves past the bar).
    package func finish() {
        if barShown { output("\n") }
        barShown = false
    }

    /// `records [########------------]  40%  4000/10000  2000/s  ETA 0:03`
    package func barLine(_ progress: ConversionProgress, elapsed: Double) -> String {
        let width = 24
        let fraction = progress.total > 0 ? min(1, Double(progress.completed) / Double(progress.total)) : 0
        let filled = Int(fraction * Double(width))
        let bar = String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled)
        return "\(progress.phase.rawValue) [\(bar)] " + details(progress, fraction: fraction, elapsed: elapsed)
    }

    /// `records: 40%  4000/10000  2000/s  ETA 0:03`
    package func plainLine(_ progress: ConversionProgress, elapsed: Double) -> String {
        let fraction = progress.total > 0 ? min(1, Double(progress.completed) / Double(progress.total)) : 0
        return "\(progress.phase.rawValue): " + details(progress, fraction: fraction, elapsed: elapsed)
    }

    private func details(_ progress: ConversionProgress, fraction: Double, elapsed: Double) -> String {
        let percentNumber = String(Int(fraction * 100))
        let percent = String(repeating: " ", count: max(0, 3 - percentNumber.count)) + percentNumber + "%"
        var text = "\(percent)  \(progress.completed)/\(progress.total)"
        guard elapsed > 0, progress.completed > 0 else { return text }
        let rate = Double(progress.completed) / elapsed
        text += "  \(Int(rate))/s"
        if progress.total > progress.completed {
            let remaining = Int((Double(progress.total - progress.completed) / rate).rounded(.up))
            let seconds = remaining % 60
            text += "  ETA \(remaining / 60):" + (seconds < 10 ? "0" : "") + String(seconds)
        }
        return text
    }
}
