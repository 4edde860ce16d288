import BLIP
import Foundation
import Testing
import TestSupport
@testable import BLIPWebSocket

@Suite(.timeLimit(.minutes(TestTimeScale.minutes(1))), .ownThreads)
struct WebSocketTLSTests {
    @Test func pinningAnotherCertificateFailsWithPinMismatch() async throws {
        let served = try SelfSignedCertificate(commonName: "served")
        let other = try SelfSignedCertificate(commonName: "other")
        let echo = try await EchoServer(options: BLIPWebSocketServerOptions(tlsIdentity: served.identity))
        let error = await webSocketError {
            _ = try await BLIPWebSocketClient.connect(
                to: try echo.url(), options: BLIPWebSocketClientOptions(pinnedServerCertificate: other.certificateDER).scaledForTests)
        }
        #expect(error == .pinnedCertificateMismatch)
        #expect(error?.isTransient == false)
        await echo.server.stop()
    }

    @Test func selfSignedCertificateIsUntrustedWithoutAPin() async throws {
        let served = try SelfSignedCertificate(commonName: "served")
        let echo = try await EchoServer(options: BLIPWebSocketServerOptions(tlsIdentity: served.identity))
        let error = await webSocketError {
            _ = try await BLIPWebSocketClient.connect(to: try echo.url(), options: BLIPWebSocketClientOptions().scaledForTests)
        }
        guard case .untrustedCertificate? = error else {
            Issue.record("expected untrustedCertificate, got \(String(describing: error))")
            return
        }
        await echo.server.stop()
    }

    @Test func localhostNameWorksWithThePinnedCertificate() async throws {
        let served = try SelfSignedCertificate(commonName: "served")
        let echo = try await EchoServer(options: BLIPWebSocketServerOptions(tlsIdentity: served.identity))
        let url = try echo.url(scheme: "wss", host: "localhost", path: "/db/_blipsync")
        let transport = try await BLIPWebSocketClient.connect(
            to: url, options: BLIPWebSocketClientOptions(pinnedServerCertificate: served.certificateDER).scaledForTests)
        try await transport.send([0x42])
        var iterator = transport.incoming.makeAsyncIterator()
        #expect(try await iterator.next() == [0x42])
        await transport.close(code: 1000, reason: "")
        await echo.server.stop()
    }

    @Test func selfSignedOnlyModeAcceptsAGeneratedCertificate() async throws {
        let served = try SelfSignedCertificate(commonName: "served")
        let echo = try await EchoServer(options: BLIPWebSocketServerOptions(tlsIdentity: served.identity))
        let transport = try await BLIPWebSocketClient.connect(
            to: try echo.url(), options: BLIPWebSocketClientOptions(acceptOnlySelfSignedServerCertificate: true).scaledForTests)
        try await transport.send([7])
        var iterator = transport.incoming.makeAsyncIterator()
        #expect(try await iterator.next() == [7])
        await transport.close(code: 1000, reason: "")
        await echo.server.stop()
    }

    @Test func selfSignedOnlyModeRejectsACertificateWhoseSignatureDoesNotVerify() throws {
        let generated = try SelfSignedCertificate(commonName: "issuer")
        #expect(ServerCertificateCheck.selfSignedOnly.rejection(ofLeaf: generated.certificateDER) == nil)
        // The certificate ends with the signature's last integer: changing its last bit keeps the
        // encoding valid and breaks the signature, as if another key had signed it.
        var forged = generated.certificateDER
        forged[forged.count - 1] ^= 0x01
        #expect(ServerCertificateCheck.selfSignedOnly.rejection(ofLeaf: forged) != nil)
        #expect(ServerCertificateCheck.selfSignedOnly.rejection(ofLeaf: nil) != nil)
        let other = try SelfSignedCertificate(commonName: "other")
        #expect(ServerCertificateCheck.pinned(generated.certificateDER).rejection(ofLeaf: other.certificateDER)
                    == .pinnedCertificateMismatch)
    }

    @Test func plainClientAgainstTLSServerFails() async throws {
        let served = try SelfSignedCertificate(commonName: "served")
        let echo = try await EchoServer(options: BLIPWebSocketServerOptions(tlsIdentity: served.identity))
        let url = try echo.url(path: "/db/_blipsync")
        let error = await webSocketError {
            _ = try await BLIPWebSocketClient.connect(to: url, options: BLIPWebSocketClientOptions(connectTimeout: .seconds(10)).scaledForTests)
        }
        #expect(error != nil)
        await echo.server.stop()
    }

    @Test func generatedCertificateHasTheDocumentedShape() throws {
        let generated = try SelfSignedCertificate(commonName: "CBL listener")
        #expect(generated.certificatePEM.hasPrefix("-----BEGIN CERTIFICATE-----"))
        #expect(generated.privateKeyPEM.hasPrefix("-----BEGIN PRIVATE KEY-----"))
        #expect(generated.certificateDER.first == 0x30)       // a DER SEQUENCE
        // The identity loads into a TLS server configuration, from PEM and from DER.
        _ = try generated.identity.serverConfiguration()
    }
}
