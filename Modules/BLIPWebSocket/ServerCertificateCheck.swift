import X509

/// A client's own rule for the server's certificate, replacing chain-of-trust verification:
/// a pinned certificate, or "self-signed only".
enum ServerCertificateCheck: Sendable {
    /// The leaf must be exactly these DER bytes.
    case pinned([UInt8])
    /// The leaf must be self-signed: issuer = subject, and its signature verifies with its own key.
    case selfSignedOnly

    /// The check the options ask for; nil means ordinary verification against the trust store.
    init?(_ options: BLIPWebSocketClientOptions) {
        if let pinned = options.pinnedServerCertificate {
            self = .pinned(pinned)
        } else if options.acceptOnlySelfSignedServerCertificate {
            self = .selfSignedOnly
        } else {
            return nil
        }
    }

    /// Why the leaf certificate (DER) is refused, or nil to accept it.
    func rejection(ofLeaf leaf: [UInt8]?) -> BLIPWebSocketError? {
        switch self {
        case .pinned(let pinned):
            return leaf == pinned ? nil : .pinnedCertificateMismatch
        case .selfSignedOnly:
            guard let leaf, let certificate = try? Certificate(derEncoded: leaf) else {  // allowed: unreadable → rejected
                return .untrustedCertificate("the server sent no readable certificate")
            }
            guard certificate.issuer == certificate.subject,
                  certificate.publicKey.isValidSignature(certificate.signature, for: certificate) else {
                return .untrustedCertificate("only a self-signed server certificate is accepted")
            }
            return nil
        }
    }
}
