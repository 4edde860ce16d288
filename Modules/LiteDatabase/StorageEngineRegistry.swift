import LiteStorage

/// The storage engines a process can open databases with, the first being the default for new
/// databases. The public API fills it with SQLite and RocksDB; the core never names an engine.
package struct StorageEngineRegistry: Sendable {
    /// The engines, the default first.
    package let engines: [any StorageEngine]

    /// A registry of `engines`, the default first.
    package init(engines: [any StorageEngine]) {
        self.engines = engines
    }

    /// The engine with this name (`SQLite`, `RocksDB`), compared without regard to case.
    package func engine(named name: String) -> (any StorageEngine)? {
        engines.first { $0.name.lowercased() == name.lowercased() }
    }

    /// The engine whose data file is in the bundle folder, if any engine recognises one.
    package func engine(ofBundle bundlePath: String) -> (any StorageEngine)? {
        engines.first { engine in
            let path = engine.dataFilePath(inBundle: bundlePath)
            return engine.exists(at: path) && engine.recognises(fileAt: path)
        }
    }

    /// The engines that have a file (recognised or not) in the bundle folder.
    package func enginesWithFiles(inBundle bundlePath: String) -> [any StorageEngine] {
        engines.filter { $0.exists(at: $0.dataFilePath(inBundle: bundlePath)) }
    }
}
