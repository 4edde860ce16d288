import ArgumentParser
import CommandLineSupport
import DatabaseTools
import FoundationEssentials
import Glibc
import LiteSupport

/// `cblite-convert SOURCE DEST`: copies a database into a new bundle stored with another engine.
@main
struct CBLiteConvert: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cblite-convert",
        abstract: "Convert a Couchbase Lite database to another storage engine (or upgrade a 1.x database).",
        discussion: """
            Copies SOURCE (a .cblite2 bundle) into the new bundle DEST, preserving every document \
            with its revision tree, sequences, purge count, UUIDs, shared keys, expirations, \
            checkpoints and blobs. SOURCE is never modified. An encrypted SOURCE needs its key \
            (--encryption-key-file or --encryption-password-file); DEST is encrypted with the \
            same key unless --new-encryption-key-file, --new-encryption-password-file or \
            --remove-encryption says otherwise.
            """)

    @Argument(help: "The database to convert (…/name.cblite2).")
    var source: String

    @Argument(help: "The new database to create (…/name.cblite2).")
    var destination: String

    @Option(help: "The destination's engine: sqlite or rocksdb (default: the other engine than the source's).")
    var engine: String?

    @Flag(help: "Compare source and destination record by record and blob by blob afterwards.")
    var verify = false

    /// The source's key.
    @OptionGroup var encryption: EncryptionKeyOptions

    @Option(name: .customLong("new-encryption-key-file"),
            help: "Encrypt DEST with the 32-byte AES-256 key in this file instead of the source's key.")
    var newKeyFile: String?

    @Option(name: .customLong("new-encryption-password-file"),
            help: "Encrypt DEST with the key derived from the password on this file's first line instead.")
    var newPasswordFile: String?

    @Flag(help: "Write DEST unencrypted.")
    var removeEncryption = false

    @Flag(help: "Replace DEST if it exists.")
    var force = false

    @Flag(help: "Show no progress.")
    var quiet = false

    @Flag(help: "Print the summary as JSON.")
    var json = false

    /// Runs the command line, reporting any error as one line.
    static func main() { ToolFailure.main(Self.self) }

    func run() throws {
        try ToolFailure.reporting {
            let style: ProgressDisplay.Style = quiet ? .quiet : (isatty(STDERR_FILENO) != 0 ? .bar : .lines)
            let display = ProgressDisplay(style: style) { StandardStreams.writeError($0) }
            let sourceKey = try encryption.key()
            let newKey = try EncryptionKeyOptions.key(keyFile: newKeyFile, passwordFile: newPasswordFile,
                                                      options: ("--new-encryption-key-file", "--new-encryption-password-file"))
            if removeEncryption, newKey != nil {
                throw ValidationError("--remove-encryption and a new encryption key contradict each other")
            }
            let destinationKey = removeEncryption ? nil : (newKey ?? sourceKey)
            let report = try EngineConverter.convert(
                source: try DatabaseLocation(path: source, encryptionKey: sourceKey),
                destination: try DatabaseLocation(path: destination, encryptionKey: destinationKey),
                options: .init(engine: engine, verify: verify, force: force), progress: display.update)
            display.finish()
            if json {
                let summary = ConversionSummary(
                    sourceEngine: report.sourceEngine, destinationEngine: report.destinationEngine,
                    itemsCopied: report.itemsCopied, blobsCopied: report.blobsCopied,
                    verified: report.verification != nil, verifiedRecords: report.verification?.records,
                    verifiedBlobs: report.verification?.blobs)
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.sortedKeys]
                let data = try encoder.encode(summary)
                print(String(decoding: data, as: UTF8.self))
            } else if !quiet {
                var line = "Converted \(source) (\(report.sourceEngine)) to \(destination) (\(report.destinationEngine)): "
                    + "\(report.itemsCopied) records, \(report.blobsCopied) blobs"
                if let summary = report.verification {
                    line += "; verified \(summary.records) records and \(summary.blobs) blobs"
                }
                print(line)
            }
        }
    }
}

/// What `--json` prints: one object, keys sorted; the verification counts only with `--verify`.
private struct ConversionSummary: Encodable {
    var sourceEngine: String
    var destinationEngine: String
    var itemsCopied: Int
    var blobsCopied: Int
    var verified: Bool
    var verifiedRecords: Int?
    var verifiedBlobs: Int?
}
