import CRocksDB
import FoundationEssentials
import Glibc
import LiteStorage
import LiteSupport

/// The RocksDB storage engine: the same records as the SQLite engine, kept in a RocksDB folder
/// (`db.rocksdb/`) with the layout described in ``RocksDBLayout``.
///
/// With `DataFileOptions.encryptionKey`, every file RocksDB writes is encrypted
/// (``RocksDBEncryption``); the key is checked against the folder before RocksDB opens it.
///
/// ```swift
/// let file = try RocksDBEngine().open(at: bundle + "/db.rocksdb", options: .init(create: true))
/// ```
package struct RocksDBEngine: StorageEngine {
    /// `RocksDB`, the name the registry and `DatabaseConfiguration` use.
    package static let engineName = "RocksDB"

    /// `db.rocksdb` (a folder).
    package var fileName: String { "db.rocksdb" }

    /// Makes the engine (it holds no state).
    package init() {}

    /// Whether `path` is a folder holding a RocksDB `CURRENT` file that names a manifest.
    package func recognises(fileAt path: String) -> Bool {
        (try? Self.checkFolder(path)) != nil  // allowed: a yes/no question: is this a RocksDB folder
    }

    /// Removes the folder and everything in it.
    package func delete(at path: String) throws {
        guard FileManager.default.fileExists(atPath: path) else { return }
        do {
            try FileManager.default.removeItem(atPath: path)
        } catch {
            throw StorageError(.ioError, "cannot delete \"\(path)\": \(fileErrorDescription(error))")
        }
    }

    /// Checks a folder looks like a RocksDB database without opening it.
    ///
    /// - Returns: whether its files are encrypted (their content is then checked by RocksDB,
    ///   once the key is known to be right).
    @discardableResult
    private static func checkFolder(_ path: String) throws -> Bool {
        let current = path + "/CURRENT"
        guard let data = FileManager.default.contents(atPath: current) else {
            throw StorageError(.notADatabaseFile, "\"\(path)\" is not a RocksDB database (no CURRENT file)")
        }
        if data.starts(with: RocksDBEncryption.magic) { return true }
        let text = String(decoding: data, as: UTF8.self)
        guard text.hasPrefix("MANIFEST-"), text.hasSuffix("\n") else {
            throw StorageError(.corruptData, "RocksDB database \"\(path)\" is damaged: its CURRENT file does not "
                               + "name a manifest; restore it from a backup")
        }
        let manifest = path + "/" + text.dropLast()
        let size = fileSize(atPath: manifest)
        guard let size, size > 0 else {
            throw StorageError(.corruptData, "RocksDB database \"\(path)\" is damaged: its manifest "
                               + "\(text.dropLast()) is missing or empty; restore it from a backup")
        }
        return false
    }

    /// Refuses a key for a plaintext folder, no key or a wrong one for an encrypted folder:
    /// before RocksDB opens it, since RocksDB writes to a folder it opens.
    private static func checkEncryption(folder path: String, isEncrypted: Bool, key: AES256Key?) throws {
        switch (isEncrypted, key) {
        case (false, nil):
            return
        case (true, nil):
            throw StorageError(.notADatabaseFile, "RocksDB database \"\(path)\" is encrypted: open it with its "
                               + "encryption key")
        case (false, .some):
            throw StorageError(.notADatabaseFile, "RocksDB database \"\(path)\" is not encrypted, but an "
                               + "encryption key was given: open it without a key")
        case (true, .some(let key)):
            try RocksDBEncryption.checkKey(key, folder: path)
        }
    }

    /// Opens or creates the folder; see `StorageEngine.open`.
    package func open(at path: String, options: DataFileOptions) throws -> any DataFile {
        return try openFile(at: path, options: options)
    }

    /// Opens or creates the folder, returning the concrete type.
    package func openFile(at path: String, options: DataFileOptions) throws -> RocksDBDataFile {
        var isFolder = false
        let exists = FileManager.default.fileExists(atPath: path, isDirectory: &isFolder)
        var creating = false
        if exists && !isFolder {
            let hint = Self.isSQLiteFile(path) ? " (it is a SQLite database: open it with the SQLite engine)" : ""
            throw StorageError(.notADatabaseFile, "\"\(path)\" is a file, not a RocksDB database folder\(hint)")
        }
        if !exists {
            guard options.create, !options.readOnly else {
                throw StorageError(.notFound, "RocksDB database \"\(path)\" does not exist")
            }
            do {
                try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
            } catch {
                throw StorageError(.ioError, "cannot create folder \"\(path)\": \(fileErrorDescription(error))")
            }
            creating = true
        } else if (try? FileManager.default.contentsOfDirectory(atPath: path))?.isEmpty == true {  // allowed: an unreadable folder is not taken as empty; it goes on to the open, which reports
            guard options.create, !options.readOnly else {
                throw StorageError(.notADatabaseFile, "\"\(path)\" is an empty folder, not a RocksDB database")
            }
            creating = true
        } else {
            try Self.checkEncryption(folder: path, isEncrypted: try Self.checkFolder(path), key: options.encryptionKey)
        }

        let shared = SharedFile.retain(path: path)
        do {
            let handle = try shared.withEngineState { state -> RocksDBHandle in
                if let handle = state as? RocksDBHandle {
                    // Checked against the files above; this covers a folder created meanwhile.
                    if handle.encryptionKey != options.encryptionKey {
                        throw StorageError(.notADatabaseFile, "RocksDB database \"\(path)\" is already open in this "
                                           + "process with another encryption key (or with none)")
                    }
                    if handle.isReadOnly && !options.readOnly {
                        throw StorageError(.busy, "RocksDB database \"\(path)\" is already open read-only in "
                                           + "this process; close it before opening it for writing")
                    }
                    handle.users += 1
                    return handle
                }
                let handle = try Self.openHandle(path, create: creating, readOnly: options.readOnly,
                                                 encryptionKey: options.encryptionKey)
                handle.users = 1
                state = handle
                return handle
            }
            let file = RocksDBDataFile(path: path, handle: handle, shared: shared, readOnly: options.readOnly)
            do {
                try Self.checkFormat(file, creating: creating)
            } catch {
                try? file.close()  // allowed: closing after a failed check; the check error is reported
                throw error
            }
            return file
        } catch {
            shared.release()
            if creating && !exists { try? FileManager.default.removeItem(atPath: path) }  // allowed: only the folder this call created; the open error is reported
            throw error
        }
    }

    /// Writes the format marker into a new folder, or checks an existing folder has ours.
    private static func checkFormat(_ file: RocksDBDataFile, creating: Bool) throws {
        let marker = try file.handle.get(RocksDBLayout.formatKey, view: .latest) { [UInt8]($0) }
        if marker == RocksDBLayout.formatMarker { return }
        if marker == nil && creating {
            try file.write { txn in file.put(RocksDBLayout.formatKey, RocksDBLayout.formatMarker, in: try file.batch(txn)) }
            return
        }
        throw StorageError(.notADatabaseFile, "\"\(file.path)\" is a RocksDB database but not a Couchbase Lite one "
                           + "(no format marker \"\(String(decoding: RocksDBLayout.formatMarker, as: UTF8.self))\")")
    }

    /// One block cache (uncompressed table blocks) for every RocksDB database of the process,
    /// 32 MB. RocksDB's default, 8 MB per database, is smaller than the travel set's blocks
    /// uncompressed, so reading every document in turn missed the cache on each read and read
    /// the block from the file again.
    nonisolated(unsafe) private static let sharedBlockCache: OpaquePointer? = rocksdb_cache_create_lru(32 << 20)

    /// The memtable bloom filter's size as a fraction of the memtable's (RocksDB's option).
    static let memtableBloomRatio = 0.01

    private static func openHandle(_ path: String, create: Bool, readOnly: Bool,
                                   encryptionKey: AES256Key?) throws -> RocksDBHandle {
        try loadLibrary()
        let environment = try encryptionKey.map { try RocksDBEncryption.makeEnvironment(key: $0, path: path) }
        var opened = false
        // Until the handle owns it.
        defer { if !opened, let environment { RocksDBEncryption.destroyEnvironment(environment) } }
        guard let options = rocksdb_options_create(),
              let tableOptions = rocksdb_block_based_options_create() else {
            throw StorageError(.unexpectedError, "RocksDB database \"\(path)\": cannot allocate options")
        }
        rocksdb_options_set_create_if_missing(options, create ? 1 : 0)
        // Bloom filters make the existence check of an insert-only write cheap.
        rocksdb_block_based_options_set_filter_policy(tableOptions, rocksdb_filterpolicy_create_bloom_full(10))
        if let blockCache = Self.sharedBlockCache { rocksdb_block_based_options_set_block_cache(tableOptions, blockCache) }
        rocksdb_options_set_block_based_table_factory(options, tableOptions)
        rocksdb_options_set_compression(options, Int32(rocksdb_lz4_compression))
        // A whole-key bloom filter on the memtable makes the "does this key exist yet?" check of
        // every insert cheap while the data is still in memory. Sized at 1 % of the 64 MB
        // memtable (640 KB: about 45 bits per key when documents are 1 KB, a record and a
        // sequence entry each); at 10 % it was 6.4 MB, zeroed at every open (Storage-22).
        rocksdb_options_set_memtable_prefix_bloom_size_ratio(options, Self.memtableBloomRatio)
        rocksdb_options_set_memtable_whole_key_filtering(options, 1)
        rocksdb_options_set_keep_log_file_num(options, 2)
        rocksdb_options_set_max_log_file_size(options, 1 << 20)
        // RocksDB opens a database's table files with this many threads, and starts them all
        // even for a new database with none: the default 16 made every open start and join 15
        // threads. Couchbase Lite databases have few table files.
        rocksdb_options_set_max_file_opening_threads(options, 2)
        if let environment { RocksDBEncryption.configure(options, environment: environment) }
        var error: UnsafeMutablePointer<CChar>?
        let db = readOnly ? rocksdb_open_for_read_only(options, path, 0, &error) : rocksdb_open(options, path, &error)
        do {
            try RocksDBHandle.check(error, path: path, doing: "opening")
        } catch {
            rocksdb_options_destroy(options)
            rocksdb_block_based_options_destroy(tableOptions)
            throw error
        }
        guard let db else {
            rocksdb_options_destroy(options)
            rocksdb_block_based_options_destroy(tableOptions)
            throw StorageError(.unexpectedError, "RocksDB database \"\(path)\": open returned no handle")
        }
        opened = true
        return RocksDBHandle(db: db, path: path, readOnly: readOnly, options: options, tableOptions: tableOptions,
                             encryptionEnvironment: environment, encryptionKey: encryptionKey)
    }

    /// Loads librocksdb if this is the process's first RocksDB database: it is not linked, so
    /// that programs that never open one do not pay for loading it (decision Tools-12).
    package static func loadLibrary() throws {
        var message: UnsafeMutablePointer<CChar>?
        guard cbl_rocksdb_load(&message) == 0 else { return }
        defer { free(message) }
        throw StorageError(.unexpectedError, message.map { String(cString: $0) } ?? "cannot load the RocksDB library")
    }

    /// Whether `path` starts with SQLite's magic header (to name it in an error message).
    private static func isSQLiteFile(_ path: String) -> Bool {
        ReadOnlyFile(path: path)?.read(upToCount: 16) == Array("SQLite format 3\0".utf8)
    }

    /// Gives back a data file's use of the shared handle; the last user closes it.
    static func releaseHandle(_ handle: RocksDBHandle, shared: SharedFile) {
        shared.withEngineState { state in
            handle.users -= 1
            if handle.users == 0 {
                handle.close()
                state = nil
            }
        }
        shared.release()
    }
}
