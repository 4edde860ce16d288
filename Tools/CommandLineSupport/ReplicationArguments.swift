import ArgumentParser
import FoundationEssentials

/// The arguments of `cblite push`, `pull` and `sync`, shared by `cblite` (which parses and
/// checks them, then hands them on) and `cblite-replicate` (which runs the replication).
///
/// ```swift
/// let parsed = try ReplicationArguments.parse(["db.cblite2", "ws://localhost:4984/db", "--continuous"])
/// parsed.commandLine   // ["db.cblite2", "ws://localhost:4984/db", "--continuous"]
/// ```
package struct ReplicationArguments: ParsableArguments {
    @Argument(help: "The local database bundle (…/name.cblite2).")
    package var database: String

    @Argument(help: "The other side: ws[s]://host:port/db, or another local …/name.cblite2.")
    package var target: String

    @Option(help: "User name for HTTP basic authentication.")
    package var user: String?

    @Option(help: "Password for HTTP basic authentication.")
    package var password: String?

    @Option(help: "A DER certificate file: accept the server only with exactly this certificate.")
    package var pinnedCert: String?

    @Flag(help: "Keep replicating new changes until interrupted.")
    package var continuous = false

    /// The local database's key, when it is encrypted (a local target database must not be).
    @OptionGroup package var encryption: EncryptionKeyOptions

    package init() {}

    /// The arguments again, as a command line that parses back to the same values (`--name=value`
    /// and a `--` before the positional ones, so that a value starting with `-` stays a value).
    package var commandLine: [String] {
        var line: [String] = []
        if let user { line.append("--user=\(user)") }
        if let password { line.append("--password=\(password)") }
        if let pinnedCert { line.append("--pinned-cert=\(pinnedCert)") }
        if continuous { line.append("--continuous") }
        line += encryption.arguments
        return line + ["--", database, target]
    }
}

/// The arguments of `cblite serve`, shared as ``ReplicationArguments`` are.
package struct ServeArguments: ParsableArguments {
    @Argument(help: "The database bundle (…/name.cblite2).")
    package var database: String

    @Option(help: "TCP port (0: any free port).")
    package var port: UInt16 = 4984

    @Option(help: "Address to listen on (0.0.0.0 for every IPv4 interface).")
    package var host: String = "127.0.0.1"

    @Option(help: "PEM certificate (chain) file: serve wss:// with it (needs --tls-key).")
    package var tlsCert: String?

    @Option(help: "PEM private key file for --tls-cert.")
    package var tlsKey: String?

    @Flag(help: "Serve wss:// with a generated self-signed certificate (printed, for clients to pin).")
    package var tls = false

    @Flag(help: "Refuse pushes.")
    package var readonly = false

    /// The database's key, when it is encrypted.
    @OptionGroup package var encryption: EncryptionKeyOptions

    @Option(help: ArgumentHelp("Require this user name (HTTP basic authentication); the password comes from "
                               + "--password-file or the \(Self.passwordVariable) environment variable."))
    package var user: String?

    @Option(help: "A file whose first line is the password for --user.")
    package var passwordFile: String?

    /// Refused (a command line is visible to every user of the machine, in `ps`).
    @Option(help: .hidden)
    package var password: String?

    /// The environment variable the password for `--user` may come from.
    package static let passwordVariable = "CBLITE_PASSWORD"

    package init() {}

    package func validate() throws {
        if password != nil {
            throw ValidationError("--password is not accepted: a command line is visible to every user in `ps`; "
                                  + "put the password in the \(Self.passwordVariable) environment variable or in a "
                                  + "file named by --password-file")
        }
        if user != nil && passwordFile == nil && Self.environmentPassword() == nil {
            throw ValidationError("--user needs a password: set \(Self.passwordVariable) or pass --password-file")
        }
        if user == nil && passwordFile != nil {
            throw ValidationError("--password-file needs --user")
        }
    }

    /// The password for `--user`: the first line of `--password-file`, else the environment
    /// variable; nil without `--user`.
    package func listenerPassword() throws -> String? {
        guard user != nil else { return nil }
        if let passwordFile {
            let text: String
            do {
                text = try String(contentsOfFile: passwordFile, encoding: .utf8)
            } catch {
                throw ValidationError("cannot read the password file \(passwordFile): \(error)")
            }
            let line = text.split(separator: "\n", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
            return String(line.hasSuffix("\r") ? line.dropLast() : line)
        }
        guard let password = Self.environmentPassword() else {
            throw ValidationError("--user needs a password: set \(Self.passwordVariable) or pass --password-file")
        }
        return password
    }

    private static func environmentPassword() -> String? {
        ProcessInfo.processInfo.environment[passwordVariable]
    }

    /// The arguments again, as a command line that parses back to the same values (as
    /// ``ReplicationArguments/commandLine``).
    package var commandLine: [String] {
        var line = ["--port=\(port)", "--host=\(host)"]
        if let tlsCert { line.append("--tls-cert=\(tlsCert)") }
        if let tlsKey { line.append("--tls-key=\(tlsKey)") }
        if tls { line.append("--tls") }
        if readonly { line.append("--readonly") }
        // The password is not passed on: the helper reads the same file or inherits the
        // environment (execv keeps it).
        if let user { line.append("--user=\(user)") }
        if let passwordFile { line.append("--password-file=\(passwordFile)") }
        line += encryption.arguments
        return line + ["--", database]
    }
}
