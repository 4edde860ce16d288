import Foundation

/// Writes a benchmark area's table into `docs/performance.md`, between markers that name the
/// area, so that re-running one area replaces only its own section.
enum PerformanceDocument {
    static func update(path: String, report: BenchmarkReport, context: String) throws {
        let start = "<!-- bench:\(report.area):start -->"
        let end = "<!-- bench:\(report.area):end -->"
        let section = [start, "", context, "", report.markdown(), "", end].joined(separator: "\n")
        var text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? "# Performance\n"
        if let startRange = text.range(of: start), let endRange = text.range(of: end),
           startRange.lowerBound < endRange.upperBound {
            text.replaceSubrange(startRange.lowerBound..<endRange.upperBound, with: section)
        } else {
            if !text.hasSuffix("\n") { text += "\n" }
            text += "\n## `cblite-bench \(report.area)`\n\n" + section + "\n"
        }
        try text.write(toFile: path, atomically: true, encoding: .utf8)
    }
}
