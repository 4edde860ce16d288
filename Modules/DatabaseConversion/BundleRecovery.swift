import FoundationEssentials
import LiteDatabase
import LiteStorage

/// Finishes or undoes whatever replaced a bundle's files when a crash interrupted it: an
/// in-place engine conversion (``InPlaceConversion``) or a key change
/// (``EncryptionKeyChange``). Every open, through the API and the tools, runs it first.
///
/// ```swift
/// try BundleRecovery.recover(bundlePath: bundle.path, registry: registry)
/// ```
package enum BundleRecovery {
    /// Recovers the bundle when a marker says an operation was interrupted; does nothing
    /// (and takes no lock) otherwise.
    ///
    /// An operation still running (in another process or thread) is not interrupted: this
    /// waits for its exclusive lock, after which its marker is gone or really is a leftover.
    package static func recover(bundlePath: String, registry: StorageEngineRegistry) throws {
        let markers = [InPlaceConversion.markerName, EncryptionKeyChange.markerName]
        guard markers.contains(where: { FileManager.default.fileExists(atPath: bundlePath.pathAppending($0)) }) else {
            return
        }
        let lock = try DatabaseToolsError.wrapping(.ioFailure, "cannot lock \(bundlePath)") {
            try BundleLock.exclusive(bundlePath: bundlePath, wait: true)
        }
        defer { lock?.release() }
        try recoverHoldingLock(bundlePath: bundlePath, registry: registry)
    }

    /// ``recover(bundlePath:registry:)`` for a caller that holds the exclusive lock.
    package static func recoverHoldingLock(bundlePath: String, registry: StorageEngineRegistry) throws {
        try InPlaceConversion.recoverHoldingLock(bundlePath: bundlePath, registry: registry)
        try EncryptionKeyChange.recoverHoldingLock(bundlePath: bundlePath, registry: registry)
    }
}
