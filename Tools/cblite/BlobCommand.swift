import ArgumentParser
import BlobStore
import CommandLineSupport
import DatabaseConversion
import DatabaseTools
import FoundationEssentials
import LiteSupport

/// `cblite blob DB DIGEST [--out FILE]`.
struct BlobCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "blob",
                                                    abstract: "Write a blob's bytes to stdout or a file.")

    @OptionGroup var options: DatabaseOptions

    @Argument(help: "The blob's digest (sha1-…).")
    var digest: String

    @Option(help: "Write to this file instead of stdout.")
    var out: String?

    func run() throws {
        try ToolFailure.reporting {
            let core = try options.open(.readOnly)
            defer { try? core.close() }
            let key = try DatabaseToolsError.wrapping(.invalidArgument, "\"\(digest)\" is not a blob digest") {
                try BlobKey(digest)
            }
            let store = core.blobStore
            guard store.contains(key) else {
                throw DatabaseToolsError(.notFound, "no blob \(digest) in \(core.bundle.path)")
            }
            let data = try DatabaseToolsError.wrapping(.ioFailure, "cannot read blob \(digest)") { try store.data(for: key) }
            if let out {
                try DatabaseToolsError.wrapping(.ioFailure, "cannot write \(out)") {
                    try data.write(to: URL(fileURLWithPath: out))
                }
            } else {
                StandardStreams.writeOutput(data)
            }
        }
    }
}
