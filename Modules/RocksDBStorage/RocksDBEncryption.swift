import CRocksDB
import FoundationEssentials
import Glibc
import LiteStorage
import LiteSupport

/// Encryption at rest for the RocksDB engine: an encrypted RocksDB environment (every file
/// RocksDB writes is AES-256-CTR encrypted behind a 4 KB prefix; docs/security.md, "RocksDB
/// engine"), and the check of a folder's key made before RocksDB is let near the folder.
///
/// The environment lives in `libCRocksDBEncryption.so` (Modules/CRocksDBEncryption), which is
/// loaded, with OpenSSL's libcrypto, only when a database is opened with a key. The
/// ``RocksDBHandle`` owns the environment it makes, and destroys it after closing the database.
enum RocksDBEncryption {
    /// The first bytes of every file the encrypted environment writes.
    static let magic = Array("CBLRDBEN".utf8)

    /// Makes the environment for `key`; ``destroyEnvironment(_:)`` frees it.
    static func makeEnvironment(key: AES256Key, path: String) throws -> OpaquePointer {
        try loadLibrary()
        var message: UnsafeMutablePointer<CChar>?
        guard let env = key.bytes.withUnsafeBufferPointer({
            cbl_rocksdb_encryption_env_create($0.baseAddress, $0.count, &message)
        }) else {
            defer { free(message) }
            throw StorageError(.crypto, "RocksDB database \"\(path)\": cannot set up encryption: "
                               + (message.map { String(cString: $0) } ?? "unknown failure"))
        }
        return env
    }

    /// Frees an environment, once no database uses it.
    static func destroyEnvironment(_ env: OpaquePointer) {
        cbl_rocksdb_encryption_env_destroy(env)
    }

    /// Makes RocksDB write and read every file through the environment, and drops its
    /// diagnostic log (written outside the environment, in plaintext).
    static func configure(_ options: OpaquePointer, environment env: OpaquePointer) {
        rocksdb_options_set_env(options, cbl_rocksdb_encryption_env_rocksdb_env(env))
        rocksdb_options_set_info_log(options, cbl_rocksdb_encryption_env_logger(env))
    }

    /// Refuses `key` unless it is the key the folder's files were written with; reads the
    /// `CURRENT` file's prefix only, so a wrong key changes nothing on disk.
    static func checkKey(_ key: AES256Key, folder path: String) throws {
        try loadLibrary()
        let current = path + "/CURRENT"
        let answer = key.bytes.withUnsafeBufferPointer {
            cbl_rocksdb_encryption_check_file(current, $0.baseAddress, $0.count)
        }
        switch answer {
        case 1:
            return
        case 0:
            throw StorageError(.notADatabaseFile, "RocksDB database \"\(path)\" is not encrypted, but an "
                               + "encryption key was given: open it without a key")
        case -1:
            throw StorageError(.notADatabaseFile, "RocksDB database \"\(path)\" is encrypted with another "
                               + "key: the encryption key given is wrong")
        default:
            let reason = String(cString: strerror(errno))
            throw StorageError(.ioError, "RocksDB database \"\(path)\": cannot read its CURRENT file to check "
                               + "the encryption key: \(reason)")
        }
    }

    /// Loads librocksdb and the encryption library (once per process).
    private static func loadLibrary() throws {
        var message: UnsafeMutablePointer<CChar>?
        guard cbl_rocksdb_load_encryption(&message) == 0 else { return }
        defer { free(message) }
        throw StorageError(.unsupportedEncryption, message.map { String(cString: $0) }
                           ?? "cannot load the RocksDB encryption library")
    }
}
