import Crypto
import Foundation
import SwiftASN1
import X509

/// A freshly generated self-signed certificate and its key: what the listener's "generate a
/// certificate" option and the tests use.
///
/// P-256 ECDSA key, SHA-256 signature, subject = issuer = `CN=<commonName>`, subject alternative
/// names `DNS:localhost` and `IP:127.0.0.1` (plus any given), server and client auth usages.
///
/// ```swift
/// let generated = try SelfSignedCertificate(commonName: "CBL listener")
/// var server = BLIPWebSocketServerOptions(tlsIdentity: generated.identity)
/// var client = BLIPWebSocketClientOptions(pinnedServerCertificate: generated.certificateDER)
/// ```
package struct SelfSignedCertificate: Sendable {
    /// The certificate, DER-encoded (what a client pins).
    package let certificateDER: [UInt8]
    /// The certificate as a PEM `CERTIFICATE` block.
    package let certificatePEM: String
    /// The private key as a PEM `PRIVATE KEY` block (PKCS #8).
    package let privateKeyPEM: String

    /// Generates a key pair and signs a certificate with it.
    ///
    /// - Parameters:
    ///   - commonName: the subject's CN.
    ///   - extraDNSNames: host names to add to `localhost` in the SAN extension.
    ///   - validity: how long from now (minus an hour, for clock skew) the certificate is valid.
    package init(commonName: String, extraDNSNames: [String] = [], validity: TimeInterval = 365 * 24 * 3600) throws {
        let key = P256.Signing.PrivateKey()
        let name = try DistinguishedName { CommonName(commonName) }
        let now = Date()
        var names: [GeneralName] = ["localhost"].map { .dnsName($0) } + extraDNSNames.map { .dnsName($0) }
        names.append(.ipAddress(ASN1OctetString(contentBytes: [127, 0, 0, 1])))
        let certificate = try Certificate(
            version: .v3,
            serialNumber: Certificate.SerialNumber(),
            publicKey: Certificate.PublicKey(key.publicKey),
            notValidBefore: now.addingTimeInterval(-3600),
            notValidAfter: now.addingTimeInterval(validity),
            issuer: name,
            subject: name,
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.notCertificateAuthority)
                Critical(KeyUsage(digitalSignature: true, keyEncipherment: true))
                try ExtendedKeyUsage([.serverAuth, .clientAuth])
                SubjectAlternativeNames(names)
            },
            issuerPrivateKey: Certificate.PrivateKey(key))
        let pem = try certificate.serializeAsPEM()
        certificateDER = pem.derBytes
        certificatePEM = pem.pemString
        privateKeyPEM = key.pemRepresentation
    }

    /// The identity a ``BLIPWebSocketServer`` presents.
    package var identity: TLSIdentity {
        TLSIdentity(pemCertificateChain: certificatePEM, pemPrivateKey: privateKeyPEM)
    }
}
