import DatabaseConversion
import LiteDatabase
import LiteSupport

extension Database {
    /// Finishes or undoes an interrupted conversion, then converts the bundle in place when it
    /// is stored with another engine than `engineName` (encrypted with `encryptionKey`, as the
    /// original is).
    static func convertIfNeeded(_ bundle: DatabaseBundle, to engineName: String?, encryptionKey: AES256Key?) throws {
        guard bundle.exists else { return }
        do {
            try BundleRecovery.recover(bundlePath: bundle.path, registry: engines)
            guard let engineName, let target = engines.engine(named: engineName),
                  let current = engines.engine(ofBundle: bundle.path), current.name != target.name else { return }
            log.log(.info, .database, "Converting database \"\(bundle.name)\" from \(current.name) to \(target.name)")
            try InPlaceConversion.convert(bundlePath: bundle.path, to: target, registry: engines,
                                          encryptionKey: encryptionKey)
            log.log(.info, .database, "Converted database \"\(bundle.name)\" from \(current.name) to \(target.name)")
        } catch {
            throw DatabaseError(error, context: "converting database \"\(bundle.name)\" to \(engineName ?? "?")")
        }
    }
}
