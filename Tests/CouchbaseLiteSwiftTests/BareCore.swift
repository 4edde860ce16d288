import LiteDatabase
import TestSupport

/// Opens the database "test" in `directory` on `engine` as a bare core: no index is registered
/// unless `body` registers one, so its writes are made behind the indexes' back.
func withBareCore(_ engine: StorageEngineKind, _ directory: TemporaryDirectory, create: Bool = false,
                  _ body: (DatabaseCore) throws -> Void) throws {
    let core = try DatabaseCore(bundle: DatabaseBundle(name: "test", directory: directory.path),
                                registry: StorageEngineRegistry(engines: [engine.engine]),
                                engineName: engine.engine.name, create: create)
    defer { try? core.close() }
    try body(core)
}
