import FoundationEssentials
import Glibc

extension BlobStore {
    /// How to put a blob into another store.
    package enum TransferMethod: Sendable {
        /// A hard link (no copy, no check) when both stores are on one file system and encrypted
        /// alike (the same key, or none), else a copy.
        case linkOrCopy
        /// A streamed copy whose digest is checked against the key.
        case copy
    }

    /// How old an `incoming_*` file with no open writer in this process must be before
    /// compaction treats it as left over by a crashed writer (another process may still be
    /// writing a younger one).
    package static let defaultTemporaryFileAge: TimeInterval = 60 * 60

    /// The keys of every blob in the store, in digest order. An absent directory is empty.
    ///
    /// Files whose names are not blob names (temporary files, strays) are skipped.
    package func allKeys() throws(BlobStoreError) -> [BlobKey] {
        try fileNames().compactMap { try? BlobKey(fileName: $0) }.sorted()   // allowed: other names are not blobs
    }

    /// Deletes every blob whose key is not in `keep`: the blob half of a database compaction.
    ///
    /// Blobs modified at or after `modifiedBefore` are kept too: pass the time the caller began
    /// collecting `keep`, so a blob written (or re-written, which refreshes its time) for a save
    /// that is not yet visible is not lost. Temporary files of writers still open in this process
    /// (through any store object) are never touched; other `incoming_*` files are removed once older than
    /// `temporaryFileAge`.
    ///
    /// - Returns: what was removed.
    @discardableResult
    package func removeBlobs(notIn keep: Set<BlobKey>, modifiedBefore: Date? = nil,
                             temporaryFileAge: TimeInterval = defaultTemporaryFileAge)
        throws(BlobStoreError) -> BlobRemovalSummary {
        var summary = BlobRemovalSummary()
        // A writer registers its name before creating its file, and names are never reused,
        // so a file that is not registered now can only belong to another process.
        let live = Self.liveTemporaryFiles.withLock { $0 }
        let staleBefore = Date(timeIntervalSinceNow: -temporaryFileAge)
        for name in try fileNames() {
            let path = directory.appendingPathComponent(name, isDirectory: false).path
            do {
                if name.hasPrefix(Self.temporaryFilePrefix) {
                    guard !live.contains(path),
                          let modified = try FileSystem.modificationDate(path),
                          modified < staleBefore else { continue }
                    if try FileSystem.removeFile(path) { summary.removedTemporaryFiles += 1 }
                    continue
                }
                guard let key = try? BlobKey(fileName: name), !keep.contains(key) else { continue }  // allowed: a name that is not a blob name is kept, never deleted
                if let modifiedBefore {
                    guard let modified = try FileSystem.modificationDate(path),
                          modified < modifiedBefore else { continue }
                }
                let size = try FileSystem.size(path) ?? 0
                if try FileSystem.removeFile(path) {
                    summary.removedBlobs.append(key)
                    summary.removedBytes += size
                }
            } catch {
                throw BlobStoreError(.io, "compacting the blob store: cannot remove \"\(path)\"",
                                     underlying: error)
            }
        }
        summary.removedBlobs.sort()
        return summary
    }

    /// Puts the blob into `destination` (another database's store), keeping the same key.
    ///
    /// Does nothing when `destination` already holds the blob.
    ///
    /// - Throws: `BlobStoreError` `.notFound` when this store lacks the blob, `.contentMismatch`
    ///   when a copy's content does not match its key, `.io` on a file-system failure.
    package func transfer(_ key: BlobKey, to destination: BlobStore,
                          method: TransferMethod = .linkOrCopy) throws(BlobStoreError) {
        if destination.contains(key) { return }
        let source = path(for: key)
        // A file encrypted under one key (or none) means nothing under another: re-encrypt.
        if method == .linkOrCopy && encryptionKey == destination.encryptionKey {
            guard contains(key) else { throw missing(key) }
            do {
                try FileManager.default.createDirectory(at: destination.directory,
                                                        withIntermediateDirectories: true)
            } catch {
                throw BlobStoreError(.io, "cannot create the blob store directory "
                    + "\"\(destination.directory.path)\"", underlying: error)
            }
            do {
                try FileSystem.link(source, to: destination.path(for: key))
                return
            } catch where error.code == EEXIST {
                return  // Another writer put it there first; same name, same content.
            } catch {
                // Different file systems, or links not supported: copy instead.
            }
        }
        let reader = try makeReader(for: key)
        defer { reader.close() }
        let writer = try destination.makeWriter()
        while let chunk = try reader.readChunk() {
            try writer.append(chunk)
        }
        try writer.finish(expecting: key, expectedLength: reader.length)
    }

    /// Stores a Couchbase Lite 1.x attachment file (`<40 hex digits>.blob`) under its key,
    /// checking that the content matches the digest in its name.
    ///
    /// - Returns: the attachment's key.
    /// - Throws: `BlobStoreError` `.invalidKey` when the file name is not a 1.x attachment name,
    ///   `.notFound` when there is no such file, `.contentMismatch` when the content's digest
    ///   differs from its name.
    @discardableResult
    package func importLegacyAttachment(at fileURL: URL) throws(BlobStoreError) -> BlobKey {
        let key = try BlobKey(legacyFileName: fileURL.lastPathComponent)
        if contains(key) { return key }
        do {
            return try write(contentsOf: fileURL, expecting: key)
        } catch where error.code == .contentMismatch {
            throw BlobStoreError(.contentMismatch, "1.x attachment \"\(fileURL.path)\" is corrupt: "
                + "its content does not have the digest its name gives", underlying: error)
        }
    }

    /// Stores the 1.x attachment with the given key from a 1.x `attachments/` folder.
    ///
    /// - Throws: as ``importLegacyAttachment(at:)``; `.notFound` when the folder has no file
    ///   for the key.
    package func importLegacyAttachment(_ key: BlobKey, fromDirectory legacyDirectory: URL)
        throws(BlobStoreError) {
        if contains(key) { return }
        // 1.x names files in uppercase hex; the earliest releases used lowercase.
        for name in [key.legacyFileName, key.hexDigest.lowercased() + BlobKey.fileExtension] {
            let url = legacyDirectory.appendingPathComponent(name, isDirectory: false)
            if (try? FileSystem.size(url.path)) != nil {  // allowed: a name that cannot be read is tried no further; none found is reported below
                try importLegacyAttachment(at: url)
                return
            }
        }
        throw BlobStoreError(.notFound, "1.x attachment \(key): no file \"\(key.legacyFileName)\" in "
            + "\"\(legacyDirectory.path)\"")
    }

    /// The names of the directory's entries; none when the directory does not exist yet.
    private func fileNames() throws(BlobStoreError) -> [String] {
        do {
            return try FileManager.default.contentsOfDirectory(atPath: directory.path)
        } catch {
            var isDirectory = false
            if !FileManager.default.fileExists(atPath: directory.path, isDirectory: &isDirectory) {
                return []
            }
            throw BlobStoreError(.io, "cannot list the blob store directory \"\(directory.path)\"",
                                 underlying: error)
        }
    }
}
