import CouchbaseLiteSwift
import Foundation
import Testing
import TestSupport

/// The guide's "Certificate pinning" section: the same two lines as on Apple platforms
/// (`SecCertificateCreateWithData`, `pinnedServerCertificate`), against a TLS listener whose
/// self-signed certificate is the pinned one.
@Suite(.ownThreads) struct CertificatePinningExamples {
    /// Where the guide's `dataFromResource` reads its files (the test writes the listener's
    /// certificate there).
    private let resources: URL

    init() {
        resources = FileManager.default.temporaryDirectory.appendingPathComponent("pinning-\(UUID().uuidString)")
    }

    /// The guide's helper: a file of the app's resources.
    private func dataFromResource(name: String, ofType type: String) throws -> Data {
        try Data(contentsOf: resources.appendingPathComponent("\(name).\(type)"))
    }

    @Test(arguments: StorageEngineKind.allCases)
    func aReplicatorReachesAListenerWithItsPinnedCertificate(engine: StorageEngineKind) async throws {
        try FileManager.default.createDirectory(at: resources, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: resources) }
        try await withTemporaryDirectory { directory in
            let database = try Database(name: "pinning", config: engine.config(in: directory))
            let served = try Database(name: "served", config: engine.config(in: directory))
            defer {
                try? database.close()
                try? served.close()
            }
            let document = MutableDocument(id: "pinned")
            document.setString("yes", forKey: "pinned")
            try database.saveDocument(document)

            var listenerConfig = URLEndpointListenerConfiguration(database: served)
            listenerConfig.networkInterface = "127.0.0.1"
            let listener = URLEndpointListener(config: listenerConfig)
            try await listener.start()
            let der = try #require(listener.tlsIdentity?.certificateDER)
            try der.write(to: resources.appendingPathComponent("cert.cer"))
            let target = URLEndpoint(url: try #require(listener.urls.first))

            // tag::certificate-pinning[]
            let data = try self.dataFromResource(name: "cert", ofType: "cer")
            let certificate = SecCertificateCreateWithData(nil, data)

            let config = ReplicatorConfiguration(database: database, target: target)
            config.pinnedServerCertificate = certificate
            // end::certificate-pinning[]

            config.replicatorType = .push
            let replicator = Replicator(config: config)
            let statuses = replicator.statusChanges()
            replicator.start()
            var last = replicator.status
            for await status in statuses { last = status }
            #expect(last.error == nil)
            #expect(served.document(withID: "pinned")?.string(forKey: "pinned") == "yes")
            await listener.stop()
        }
    }

    @Test func bytesThatAreNotACertificateMakeNone() {
        #expect(SecCertificateCreateWithData(nil, Data("-----BEGIN CERTIFICATE-----".utf8)) == nil)
        #expect(SecCertificateCreateWithData(nil, Data()) == nil)
    }
}
