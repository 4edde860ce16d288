import FoundationEssentials
#if canImport(Glibc)
import Glibc
import LiteSupport
#endif

/// Puts a verified new bundle in place of an old one so that a crash at any moment leaves one
/// complete database under the bundle's name, and finishes or undoes an interrupted swap.
///
/// On Linux the two folders are exchanged in one `renameat2(RENAME_EXCHANGE)` call, after
/// which the old bundle sits in the staging folder. Where that call is unavailable, the old
/// bundle is first renamed into the staging folder (`original.cblite2`) and the new one then
/// renamed into place; a `verified` marker file in the staging folder records that the new
/// bundle may be installed, so ``recover(target:stagingFolder:)`` can complete that gap.
enum BundleSwap {
    /// Marks the staging folder's new bundle as checked and ready to be installed.
    static let verifiedMarker = "verified"
    /// Where the fallback swap parks the old bundle.
    static let originalName = "original.cblite2"

    /// Replaces the folder `target` with `newBundle` (a folder inside `stagingFolder`).
    static func install(_ newBundle: String, replacing target: String, stagingFolder: String) throws {
        let fileManager = FileManager.default
        let marker = stagingFolder.pathAppending(verifiedMarker)
        guard fileManager.createFile(atPath: marker, contents: Data()) else {
            throw CocoaError(.fileWriteUnknown, userInfo: ["NSFilePath": marker])
        }
        syncFolder(stagingFolder)
        defer { syncFolder(target.pathDeletingLastComponent) }
        if exchange(newBundle, target) { return }
        let parked = stagingFolder.pathAppending(originalName)
        try fileManager.moveItem(atPath: target, toPath: parked)
        try fileManager.moveItem(atPath: newBundle, toPath: target)
    }

    /// Flushes a folder's entries to disk, so that after a power loss the swap is either
    /// fully visible or not at all before the original is deleted. Best effort: a process
    /// crash (what the tests simulate) loses nothing without it.
    private static func syncFolder(_ path: String) {
        let descriptor = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { return }
        _ = fsync(descriptor)
        close(descriptor)
    }

    /// Brings `target` back to one complete database after a crash, and removes the staging
    /// folder: the old bundle is put back unless the verified new one can be installed.
    static func recover(target: String, stagingFolder: String) throws {
        let fileManager = FileManager.default
        guard fileManager.fileExists(atPath: stagingFolder) else { return }
        if !fileManager.fileExists(atPath: target) {
            let parked = stagingFolder.pathAppending(originalName)
            let built = stagingFolder.pathAppending(target.pathLastComponent)
            let verified = stagingFolder.pathAppending(verifiedMarker)
            if fileManager.fileExists(atPath: verified), fileManager.fileExists(atPath: built) {
                try fileManager.moveItem(atPath: built, toPath: target)
            } else if fileManager.fileExists(atPath: parked) {
                try fileManager.moveItem(atPath: parked, toPath: target)
            }
        }
        // The target now holds a complete database (the original, or the verified upgrade);
        // whatever is staged is a partial build or the replaced original.
        try fileManager.removeItem(atPath: stagingFolder)
    }

    /// Swaps two paths atomically; false when the system cannot (then nothing changed).
    private static func exchange(_ first: String, _ second: String) -> Bool {
        #if os(Linux)
        guard let renameat2 = renameat2Function else { return false }
        let exchangeFlag: UInt32 = 2   // RENAME_EXCHANGE (linux/fs.h)
        return renameat2(AT_FDCWD, first, AT_FDCWD, second, exchangeFlag) == 0
        #else
        return false
        #endif
    }

    #if os(Linux)
    private typealias RenameAt2 = @convention(c) (Int32, UnsafePointer<CChar>?, Int32, UnsafePointer<CChar>?, UInt32) -> Int32

    /// glibc's `renameat2` (2.28+), looked up at run time: Swift's Glibc module does not
    /// import it (it is declared only under `_GNU_SOURCE`).
    private static let renameat2Function: RenameAt2? = {
        guard let symbol = dlsym(nil, "renameat2") else { return nil }
        return unsafeBitCast(symbol, to: RenameAt2.self)
    }()
    #endif
}
