import FoundationEssentials
import Glibc

/// A person-readable reason for an error thrown by `FileManager`, for messages such as
/// "cannot delete …: <reason>" (FoundationEssentials has no `localizedDescription`).
///
/// ```swift
/// catch { throw StorageError(.ioError, "cannot delete \(path): \(fileErrorDescription(error))") }
/// ```
package func fileErrorDescription(_ error: any Error) -> String {
    if let cocoa = error as? CocoaError {
        if let posix = cocoa.underlying as? POSIXError {
            return String(cString: strerror(posix.code.rawValue))
        }
        return "file error \(cocoa.code.rawValue)"
    }
    if let posix = error as? POSIXError { return String(cString: strerror(posix.code.rawValue)) }
    return "\(error)"
}
