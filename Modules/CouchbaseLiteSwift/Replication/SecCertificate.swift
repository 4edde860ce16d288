#if !canImport(Security)
import BLIPWebSocket
import Foundation

/// A certificate, under the name Apple's Security framework gives it, so that code written for
/// Couchbase Lite on Apple platforms (certificate pinning) builds here unchanged. It holds the
/// certificate's DER bytes; make one with ``SecCertificateCreateWithData(_:_:)``.
///
/// ```swift
/// let certificate = SecCertificateCreateWithData(nil, data)
/// config.pinnedServerCertificate = certificate
/// ```
public final class SecCertificate: Sendable, Equatable {
    /// The certificate in DER (what `SecCertificateCopyData` returns on Apple platforms).
    public let derData: Data

    fileprivate init(derData: Data) {
        self.derData = derData
    }

    /// Certificates are equal when their DER bytes are.
    public static func == (lhs: SecCertificate, rhs: SecCertificate) -> Bool {
        lhs.derData == rhs.derData
    }
}

/// A certificate from its DER bytes, as Apple's `SecCertificateCreateWithData` makes one: nil
/// when `data` is not one X.509 certificate in DER (PEM text must be decoded first).
///
/// - Parameters:
///   - allocator: unused; pass nil (Apple's function takes a `CFAllocator`).
///   - data: the certificate in DER (a `.cer` / `.der` file).
public func SecCertificateCreateWithData(_ allocator: AnyObject?, _ data: Data) -> SecCertificate? {
    guard DERCertificate.isCertificate([UInt8](data)) else { return nil }
    return SecCertificate(derData: data)
}

/// The certificate's DER bytes, as Apple's `SecCertificateCopyData` gives them.
public func SecCertificateCopyData(_ certificate: SecCertificate) -> Data {
    certificate.derData
}
#endif
