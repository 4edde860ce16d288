import ArgumentParser
import CommandLineSupport
import CouchbaseLiteSwift
import Dispatch
import Foundation
import LiteSupport

/// Opens a database bundle path (`…/name.cblite2`) with the public API, with `encryption`'s key
/// when it names one.
func openPublicDatabase(_ path: String, encryption: EncryptionKeyOptions? = nil) throws -> Database {
    let url = URL(fileURLWithPath: path).standardizedFileURL
    guard url.pathExtension == "cblite2" else {
        throw ValidationError("\(path) is not a database bundle (…/name.cblite2)")
    }
    let config = DatabaseConfiguration()
    config.directory = url.deletingLastPathComponent().path
    if let key = try encryption?.key() { config.encryptionKey = .key(Data(key.bytes)) }
    return try Database(name: url.deletingPathExtension().lastPathComponent, config: config)
}

/// Runs async work from a synchronous command (the main thread waits; it is not one of the
/// concurrency pool's threads).
func runBlocking<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) throws -> T {
    let result = Locked<Swift.Result<T, any Error>?>(nil)
    let done = DispatchSemaphore(value: 0)
    Task {
        let value: Swift.Result<T, any Error>
        do { value = .success(try await body()) } catch { value = .failure(error) }
        result.withLock { $0 = value }
        done.signal()
    }
    done.wait()
    guard let final = result.withLock({ $0 }) else { throw ExitCode.failure }
    return try final.get()
}

extension ReplicationArguments {
    /// Runs the replication and prints the counts; a continuous one runs until interrupted.
    func run(_ type: ReplicatorType) throws {
        try ToolFailure.reporting {
            let database = try openPublicDatabase(self.database, encryption: encryption)
            defer { try? database.close() }
            let endpoint: any Endpoint
            var other: Database?
            if target.hasPrefix("ws://") || target.hasPrefix("wss://") {
                guard let url = URL(string: target) else { throw ValidationError("\(target) is not a URL") }
                endpoint = URLEndpoint(url: url)
            } else {
                let opened = try openPublicDatabase(target)
                other = opened
                endpoint = DatabaseEndpoint(database: opened)
            }
            defer { try? other?.close() }
            let config = ReplicatorConfiguration(database: database, target: endpoint)
            config.replicatorType = type
            config.continuous = continuous
            if let user { config.authenticator = BasicAuthenticator(username: user, password: password ?? "") }
            if let pinnedCert {
                guard let certificate = SecCertificateCreateWithData(nil, try Data(contentsOf: URL(fileURLWithPath: pinnedCert))) else {
                    throw ValidationError("\(pinnedCert) is not a DER certificate (convert PEM with `openssl x509 -outform der`)")
                }
                config.pinnedServerCertificate = certificate
            }
            let replicator = Replicator(config: config)
            let counts = Locked((pushed: 0, pulled: 0, failed: 0))
            // Our own serial queue, drained before the totals are printed: the replicator hands
            // every document batch to it before it reports "stopped", but runs them later.
            let countingQueue = DispatchQueue(label: "cblite.replication.counts")
            replicator.addDocumentReplicationListener(withQueue: countingQueue) { replication in
                counts.withLock { counts in
                    for document in replication.documents {
                        if let error = document.error {
                            counts.failed += 1
                            if counts.failed <= 5 {
                                FileHandle.standardError.write(Data("\(replication.isPush ? "push" : "pull") \(document.id): \(error)\n".utf8))
                            }
                        }
                        else if replication.isPush { counts.pushed += 1 } else { counts.pulled += 1 }
                    }
                }
            }
            let terminal = isatty(STDERR_FILENO) != 0
            replicator.addChangeListener { change in
                guard terminal else { return }
                let progress = change.status.progress
                FileHandle.standardError.write(Data("\r\(change.status.activity) \(progress.completed)/\(progress.total)   ".utf8))
            }
            // Ctrl-C or SIGTERM stops a continuous replicator cleanly (checkpoint saved,
            // database closed); the final line of counts is still printed.
            if continuous {
                try TerminationSignals.install().onSignal { _ in replicator.stop() }
            }
            let status = try runBlocking { await replicator.runUntilStopped() }
            if terminal { FileHandle.standardError.write(Data("\n".utf8)) }
            countingQueue.sync {}
            let final = counts.withLock { $0 }
            print("\(final.pushed) pushed, \(final.pulled) pulled, \(final.failed) failed")
            if let error = status.error { throw error }
        }
    }
}

extension Replicator {
    /// Starts and waits for the stopped status.
    func runUntilStopped() async -> Status {
        let statuses = statusChanges()
        start()
        var last = status
        for await status in statuses { last = status }
        return last
    }
}

/// `cblite push DB TARGET` (run as `cblite-replicate push …`).
struct Push: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "push", abstract: "Push the database's changes to a server or another database.")
    @OptionGroup var options: ReplicationArguments
    func run() throws { try options.run(.push) }
}

/// `cblite pull DB TARGET`.
struct Pull: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "pull", abstract: "Pull a server's or another database's changes into the database.")
    @OptionGroup var options: ReplicationArguments
    func run() throws { try options.run(.pull) }
}

/// `cblite sync DB TARGET [--continuous]`.
struct Sync: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "sync", abstract: "Push and pull between the database and a server or another database.")
    @OptionGroup var options: ReplicationArguments
    func run() throws { try options.run(.pushAndPull) }
}

/// `cblite serve DB [--port P] …`: a listener for replicators, until interrupted.
struct Serve: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "serve", abstract: "Serve the database to replicators (ws:// or wss://) until interrupted.")

    @OptionGroup var options: ServeArguments

    func run() throws {
        try ToolFailure.reporting {
            // Caught from before the listener starts, so an early Ctrl-C also closes cleanly.
            let signals = try TerminationSignals.install()
            let options = self.options
            let database = try openPublicDatabase(options.database, encryption: options.encryption)
            var config = URLEndpointListenerConfiguration(database: database)
            config.port = options.port
            config.networkInterface = options.host
            config.readOnly = options.readonly
            config.disableTLS = !(options.tls || options.tlsCert != nil)
            if let tlsCert = options.tlsCert {
                guard let tlsKey = options.tlsKey else { throw ValidationError("--tls-cert needs --tls-key") }
                config.tlsIdentity = TLSIdentity(certificatePEM: try String(contentsOfFile: tlsCert, encoding: .utf8),
                                                 privateKeyPEM: try String(contentsOfFile: tlsKey, encoding: .utf8))
            }
            if let user = options.user, let expected = try options.listenerPassword() {
                // Both compared in full whatever they hold, so timing tells a client nothing.
                config.authenticator = ListenerPasswordAuthenticator { name, password in
                    let nameMatches = ConstantTime.equal(name, user)
                    let passwordMatches = ConstantTime.equal(password, expected)
                    return nameMatches && passwordMatches
                }
                if config.disableTLS {
                    FileHandle.standardError.write(Data(("cblite: warning: serving plain ws:// with --user: passwords "
                        + "cross the network in clear text; serve wss:// with --tls or --tls-cert\n").utf8))
                }
            }
            let listener = URLEndpointListener(config: config)
            try runBlocking { try await listener.start() }
            for url in listener.urls { print(url.absoluteString) }
            if let certificate = listener.tlsIdentity, config.tlsIdentity == nil {
                print(certificate.certificatePEM)
            }
            fflush(nil)
            _ = signals.wait()
            try runBlocking { await listener.stop() }
            try database.close()
        }
    }
}
