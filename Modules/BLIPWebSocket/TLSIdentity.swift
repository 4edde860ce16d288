import NIOSSL

/// A server's TLS identity: its certificate chain (leaf first) and private key, as PEM text or
/// DER bytes.
package struct TLSIdentity: Sendable, Equatable {
    /// How the bytes are encoded.
    package enum Encoding: Sendable, Equatable {
        case pem, der
    }

    /// The certificates, leaf first; with `.pem` one element may hold several PEM blocks.
    package var certificateChain: [[UInt8]]
    package var privateKey: [UInt8]
    package var encoding: Encoding

    /// An identity from PEM text: `certificateChain` may hold several `CERTIFICATE` blocks.
    package init(pemCertificateChain: String, pemPrivateKey: String) {
        certificateChain = [Array(pemCertificateChain.utf8)]
        privateKey = Array(pemPrivateKey.utf8)
        encoding = .pem
    }

    /// An identity from DER bytes: one element per certificate, leaf first.
    package init(derCertificateChain: [[UInt8]], derPrivateKey: [UInt8]) {
        certificateChain = derCertificateChain
        privateKey = derPrivateKey
        encoding = .der
    }

    /// A TLS 1.2+ server configuration presenting this identity.
    func serverConfiguration() throws -> TLSConfiguration {
        let certificates: [NIOSSLCertificate]
        let key: NIOSSLPrivateKey
        switch encoding {
        case .pem:
            certificates = try certificateChain.flatMap { try NIOSSLCertificate.fromPEMBytes($0) }
            key = try NIOSSLPrivateKey(bytes: privateKey, format: .pem)
        case .der:
            certificates = try certificateChain.map { try NIOSSLCertificate(bytes: $0, format: .der) }
            key = try NIOSSLPrivateKey(bytes: privateKey, format: .der)
        }
        var configuration = TLSConfiguration.makeServerConfiguration(
            certificateChain: certificates.map { .certificate($0) }, privateKey: .privateKey(key))
        configuration.minimumTLSVersion = .tlsv12
        return configuration
    }
}
