import ArgumentParser
import Foundation

/// Options every benchmark area takes.
struct BenchmarkOptions: ParsableArguments {
    @Option(help: "Runs per workload; the median is reported.")
    var iterations: Int = 5

    @Option(help: "Also write the table into this Markdown file (e.g. docs/performance.md).")
    var markdown: String?

    @Flag(help: "Smaller workloads, for a quick check that every benchmark runs.")
    var quick = false
}

/// One area of the benchmark (`fleece`, `storage`, `documents`, …): a set of workloads, each
/// measured against a baseline doing the same work in the same run.
protocol BenchmarkArea {
    /// The subcommand name and the section name in `docs/performance.md`.
    static var name: String { get }
    /// One line saying what the area measures.
    static var summary: String { get }
    /// Runs the workloads.
    static func run(_ options: BenchmarkOptions) throws -> BenchmarkReport
}

extension BenchmarkArea {
    static func runAndReport(_ options: BenchmarkOptions) throws {
        let report = try run(options)
        print(report.text())
        print()
        if let path = options.markdown {
            let machine = "\(ProcessInfo.processInfo.activeProcessorCount) cores, "
                + "median of \(options.iterations) runs, release build"
            let context = "Measured \(ISO8601DateFormatter().string(from: Date())) (\(machine)). "
                + "Ratio = our time / baseline time in the same run; below 1 is faster."
            try PerformanceDocument.update(path: path, report: report, context: context)
        }
    }
}

/// A subcommand that runs one benchmark area.
struct AreaCommand<Area: BenchmarkArea>: ParsableCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(commandName: Area.name, abstract: Area.summary)
    }

    @OptionGroup var options: BenchmarkOptions

    func run() throws { try Area.runAndReport(options) }
}

/// A benchmark that could not run as intended (a tool missing, a process failing, results
/// that disagree).
struct BenchmarkFailure: Error, CustomStringConvertible {
    let description: String
}
