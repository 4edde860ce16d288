import ArgumentParser

/// Every benchmark area, in the order `cblite-bench all` runs them.
enum BenchmarkAreas {
    // `blobs` first: its memory figure is cleanest in a fresh process (it also resets the peak).
    static var all: [any BenchmarkArea.Type] {
        [BlobsBenchmarks.self, FleeceBenchmarks.self, StorageBenchmarks.self, DocumentsBenchmarks.self, QueryBenchmarks.self,
         FullTextBenchmarks.self, UpgraderBenchmarks.self, ToolsBenchmarks.self, ReplicationBenchmarks.self,
         CLIBenchmarks.self, EncryptionBenchmarks.self]
    }
}

struct RunAll: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "all", abstract: "Runs every area.")

    @OptionGroup var options: BenchmarkOptions

    func run() throws {
        for area in BenchmarkAreas.all { try area.runAndReport(options) }
    }
}

@main
struct CBLiteBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cblite-bench",
        abstract: "Measures our code against raw SQLite, raw RocksDB and Foundation JSON in the same run.",
        subcommands: [RunAll.self] + BenchmarkAreas.all.map { $0.command },
        defaultSubcommand: RunAll.self)
}

extension BenchmarkArea {
    static var command: any ParsableCommand.Type { AreaCommand<Self>.self }
}
