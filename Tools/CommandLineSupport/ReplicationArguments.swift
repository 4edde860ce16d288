import ArgumentParser

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

    package init() {}

    /// The arguments again, as a command line that parses back to the same values (`--name=value`
    /// and a `--` before the positional ones, so that a value starting with `-` stays a value).
    package var commandLine: [String] {
        var line: [String] = []
        if let user { line.append("--user=\(user)") }
        if let password { line.append("--password=\(password)") }
        if let pinnedCert { line.append("--pinned-cert=\(pinnedCert)") }
        if continuous { line.append("--continuous") }
        return line + ["--", database, target]
    }
}

/// The arguments of `cblite serve`, shared as ``ReplicationArguments`` are.
package struct ServeArguments: ParsableArguments {
    @Argument(help: "The database bundle (…/name.cblite2).")
    package var database: String

    @Option(help: "TCP port (0: any free port).")
    package var port: UInt16 = 4984

    @Option(help: "Address to listen on.")
    package var host: String = "0.0.0.0"

    @Option(help: "PEM certificate (chain) file: serve wss:// with it (needs --tls-key).")
    package var tlsCert: String?

    @Option(help: "PEM private key file for --tls-cert.")
    package var tlsKey: String?

    @Flag(help: "Serve wss:// with a generated self-signed certificate (printed, for clients to pin).")
    package var tls = false

    @Flag(help: "Refuse pushes.")
    package var readonly = false

    @Option(help: "Require this user name (HTTP basic authentication).")
    package var user: String?

    @Option(help: "The password for --user.")
    package var password: String?

    package init() {}

    /// The arguments again, as a command line that parses back to the same values (as
    /// ``ReplicationArguments/commandLine``).
    package var commandLine: [String] {
        var line = ["--port=\(port)", "--host=\(host)"]
        if let tlsCert { line.append("--tls-cert=\(tlsCert)") }
        if let tlsKey { line.append("--tls-key=\(tlsKey)") }
        if tls { line.append("--tls") }
        if readonly { line.append("--readonly") }
        if let user { line.append("--user=\(user)") }
        if let password { line.append("--password=\(password)") }
        return line + ["--", database]
    }
}
