import CommandLineSupport
import ArgumentParser
import DatabaseConversion
import DatabaseTools

/// `cblite compact DB`.
struct Compact: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "compact",
        abstract: "Compact the data file and delete blobs no document refers to.")

    @OptionGroup var options: DatabaseOptions

    func run() throws {
        try ToolFailure.reporting {
            let core = try options.open(.readWrite)
            defer { try? core.close() }
            let removed = try DatabaseToolsError.wrapping(.ioFailure, "cannot compact \(core.bundle.path)") {
                try core.compact()
            }
            print("Compacted \(core.bundle.path); removed \(removed) unused blobs")
        }
    }
}
