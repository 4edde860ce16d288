import Foundation

/// `CouchbaseLiteError` bridges to `NSError` in ``CBLErrorDomain`` with the 2.x code, so code
/// written for Couchbase Lite 2.x keeps working:
///
/// ```swift
/// do {
///     try database.purgeDocument(withID: "gone")
/// } catch {
///     let error = error as NSError
///     if error.domain == CBLErrorDomain && error.code == CBLErrorNotFound {
///         // nothing to purge
///     }
/// }
/// ```
///
/// On Linux, convert with `error as NSError` (always succeeds); the conditional
/// `catch let error as NSError` does not bridge a Swift error there (no Objective-C runtime).
extension CouchbaseLiteError: CustomNSError {
    /// ``CBLErrorDomain``.
    public static var errorDomain: String { CBLErrorDomain }

    /// The 2.x error number (``Code/rawValue``).
    public var errorCode: Int { code.rawValue }

    /// The message as `NSLocalizedDescriptionKey`, and the cause as `NSUnderlyingErrorKey`.
    public var errorUserInfo: [String: Any] {
        var info: [String: Any] = [NSLocalizedDescriptionKey: message]
        if let underlying { info[NSUnderlyingErrorKey] = underlying as NSError }
        return info
    }
}

extension CouchbaseLiteError: LocalizedError {
    /// The message, so `error.localizedDescription` is what happened (as the 2.x guide prints).
    public var errorDescription: String? { message }
}
