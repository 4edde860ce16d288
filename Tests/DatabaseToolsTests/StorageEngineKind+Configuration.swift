import CouchbaseLiteSwift
import TestSupport

extension StorageEngineKind {
    /// A configuration that puts databases in `directory` with this engine, encrypted with `key`
    /// when one is given.
    func configuration(in directory: TemporaryDirectory, key: EncryptionKey? = nil) -> DatabaseConfiguration {
        let config = DatabaseConfiguration()
        config.directory = directory.path
        config.storageEngine = self == .sqlite ? .sqlite : .rocksdb
        config.encryptionKey = key
        return config
    }
}
