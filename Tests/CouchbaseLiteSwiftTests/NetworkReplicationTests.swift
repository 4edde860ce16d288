import CouchbaseLiteSwift
import Foundation
import Testing
import TestSupport

/// Replication over WebSocket: a `URLEndpointListener` serving one database, a `Replicator`
/// with a `URLEndpoint` on the other, on loopback.
@Suite(.ownThreads) struct NetworkReplicationTests {
    /// Starts a listener on `target` and runs `body` with its URL.
    func withListener<T>(_ target: Database, configure: (inout URLEndpointListenerConfiguration) -> Void = { $0.disableTLS = true },
                         _ body: (URL, URLEndpointListener) async throws -> T) async throws -> T {
        var config = URLEndpointListenerConfiguration(database: target)
        config.networkInterface = "127.0.0.1"
        configure(&config)
        let listener = URLEndpointListener(config: config)
        try await listener.start()
        do {
            let url = try #require(listener.urls.first)
            let result = try await body(url, listener)
            await listener.stop()
            return result
        } catch {
            await listener.stop()
            throw error
        }
    }

    func replicator(_ source: Database, _ url: URL, _ type: ReplicatorType = .pushAndPull,
                    configure: (ReplicatorConfiguration) -> Void = { _ in }) -> Replicator {
        let config = ReplicatorConfiguration(database: source, target: URLEndpoint(url: url))
        config.replicatorType = type
        configure(config)
        return Replicator(config: config)
    }

    @Test(arguments: enginePairs.indices)
    func pushAndPullThroughAListener(pair: Int) async throws {
        try await withTwoDatabases(enginePairs[pair]) { source, target, _ in
            for index in 1...40 { try saved(source, "local-\(index)", ["n": index, "side": "source"]) }
            for index in 1...25 { try saved(target, "remote-\(index)", ["n": index, "side": "target"]) }
            let withBlob = MutableDocument(id: "blob-doc")
            withBlob.setBlob(Blob(contentType: "application/octet-stream", data: Data((0..<70_000).map { UInt8($0 % 251) })),
                             forKey: "data")
            try source.saveDocument(withBlob)
            try await withListener(target) { url, _ in
                let status = await replicator(source, url).runToCompletion()
                #expect(status.error == nil)
                #expect(status.activity == .stopped)
            }
            #expect(source.count == 66)
            #expect(try snapshot(target) == snapshot(source))
            #expect(target.document(withID: "blob-doc")?.blob(forKey: "data")?.content?.count == 70_000)
        }
    }

    /// Larger than a WebSocket connection's 16 MiB message limit: it can only arrive streamed
    /// (issue 14), pushed to the listener and pulled back into a third database.
    @Test(arguments: [(StorageEngineKind.sqlite, StorageEngineKind.rocksdb), (.rocksdb, .sqlite)])
    func aTwentyMegabyteBlobArrivesByteIdenticalBothWays(engines: (StorageEngineKind, StorageEngineKind)) async throws {
        var state: UInt64 = 0x2545_F491_4F6C_DD1D
        let content = Data((0..<(20 << 20)).map { _ -> UInt8 in
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            return UInt8(truncatingIfNeeded: state)
        })
        try await withTwoDatabases(engines) { source, target, directory in
            let document = MutableDocument(id: "big")
            document.setBlob(Blob(contentType: "application/octet-stream", data: content), forKey: "data")
            try source.saveDocument(document)
            let pulled = try Database(name: "pulled", config: engines.0.config(in: directory))
            defer { try? pulled.close() }
            try await withListener(target) { url, _ in
                let pushed = await replicator(source, url, .push).runToCompletion()
                #expect(pushed.error == nil)
                #expect(target.document(withID: "big")?.blob(forKey: "data")?.content == content)
                let pull = await replicator(pulled, url, .pull).runToCompletion()
                #expect(pull.error == nil)
            }
            #expect(pulled.document(withID: "big")?.blob(forKey: "data")?.content == content)
        }
    }

    @Test func wrongCredentialsStopWithoutRetrying() async throws {
        try await withTwoDatabases((.sqlite, .sqlite)) { source, target, _ in
            try saved(source, "doc", ["n": 1])
            let configure: (inout URLEndpointListenerConfiguration) -> Void = { config in
                config.disableTLS = true
                config.authenticator = ListenerPasswordAuthenticator { $0 == "daniel" && $1 == "letmein" }
            }
            try await withListener(target, configure: configure) { url, _ in
                let refused = await replicator(source, url) {
                    $0.authenticator = BasicAuthenticator(username: "daniel", password: "wrong")
                }.runToCompletion()
                let error = try #require(refused.error as? CouchbaseLiteError)
                #expect(error.code.rawValue == CBLErrorHTTPBase + 401)
                #expect(target.count == 0)
                let accepted = await replicator(source, url) {
                    $0.authenticator = BasicAuthenticator(username: "daniel", password: "letmein")
                }.runToCompletion()
                #expect(accepted.error == nil)
                #expect(target.count == 1)
            }
        }
    }

    @Test func aTLSListenerIsReachedOnlyWithItsPinnedCertificate() async throws {
        try await withTwoDatabases((.sqlite, .rocksdb)) { source, target, _ in
            try saved(source, "doc", ["n": 1])
            try await withListener(target, configure: { $0.disableTLS = false }) { url, listener in
                #expect(url.scheme == "wss")
                let unpinned = await replicator(source, url, .push).runToCompletion()
                #expect((unpinned.error as? CouchbaseLiteError)?.code.rawValue == CBLErrorTLSCertUntrusted)
                let der = try #require(listener.tlsIdentity?.certificateDER)
                let certificate = try #require(SecCertificateCreateWithData(nil, der))
                let pinned = await replicator(source, url, .push) { $0.pinnedServerCertificate = certificate }
                    .runToCompletion()
                #expect(pinned.error == nil)
                #expect(target.count == 1)
            }
        }
    }
}
