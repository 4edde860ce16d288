import Foundation

/// One workload measured twice in the same run: our code, and the baseline doing the same work.
struct BenchmarkRow {
    /// What was done, e.g. "JSON → Fleece, 1000people.json".
    var workload: String
    /// Median wall time of our code.
    var ours: Duration
    /// What the baseline is, e.g. "JSONSerialization".
    var baselineName: String
    /// Median wall time of the baseline.
    var baseline: Duration
    /// The largest acceptable time ratio (ours / baseline), when the issue sets one.
    var maximumRatio: Double?

    /// Time ratio: below 1 means ours is faster than the baseline.
    var ratio: Double { ours.seconds / max(baseline.seconds, 1e-12) }

    /// Whether the row meets its target (always true without one).
    var meetsTarget: Bool { maximumRatio.map { ratio <= $0 } ?? true }
}

/// The rows of one benchmark area, printable as a terminal table or as Markdown.
struct BenchmarkReport {
    var area: String
    var rows: [BenchmarkRow] = []
    var notes: [String] = []

    private static let header = ["workload", "ours", "baseline", "base time", "ratio", "target"]

    private func cells(_ row: BenchmarkRow) -> [String] {
        [row.workload, row.ours.formatted, row.baselineName, row.baseline.formatted,
         String(format: "%.2f×", row.ratio),
         row.maximumRatio.map { String(format: "≤ %.2f× %@", $0, row.meetsTarget ? "ok" : "MISSED") } ?? "–"]
    }

    /// A fixed-width table for the terminal.
    func text() -> String {
        let table = [Self.header] + rows.map(cells)
        let widths = Self.header.indices.map { column in table.map { $0[column].count }.max() ?? 0 }
        var lines = ["== \(area)"]
        for (index, line) in table.enumerated() {
            lines.append(zip(line, widths).map { $0.padding(toLength: $1, withPad: " ", startingAt: 0) }
                .joined(separator: "  "))
            if index == 0 { lines.append(widths.map { String(repeating: "-", count: $0) }.joined(separator: "  ")) }
        }
        lines += notes.map { "note: \($0)" }
        return lines.joined(separator: "\n")
    }

    /// A Markdown table (ratio = our time / baseline time; below 1 is faster than the baseline).
    func markdown() -> String {
        var lines = ["| " + Self.header.joined(separator: " | ") + " |",
                     "|" + String(repeating: "---|", count: Self.header.count)]
        lines += rows.map { "| " + cells($0).joined(separator: " | ") + " |" }
        lines += notes.map { "\n\($0)" }
        return lines.joined(separator: "\n")
    }
}

extension Duration {
    var seconds: Double {
        let parts = components
        return Double(parts.seconds) + Double(parts.attoseconds) / 1e18
    }

    var formatted: String {
        let value = seconds
        switch value {
        case ..<1e-3: return String(format: "%.1f µs", value * 1e6)
        case ..<1: return String(format: "%.2f ms", value * 1e3)
        default: return String(format: "%.2f s", value)
        }
    }
}
