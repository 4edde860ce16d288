import X509

/// Reading a certificate a client pins (the public `SecCertificate` on Linux keeps its bytes).
package enum DERCertificate {
    /// Whether `bytes` are one X.509 certificate in DER.
    package static func isCertificate(_ bytes: [UInt8]) -> Bool {
        // Only whether it parses matters here; the parser's error says nothing more to the caller.
        (try? Certificate(derEncoded: bytes)) != nil  // allowed: see above
    }
}
