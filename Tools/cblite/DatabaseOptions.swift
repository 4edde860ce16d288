import ArgumentParser
import CommandLineSupport
import DatabaseTools
import FoundationEssentials
import LiteDatabase

/// The database argument and `--upgrade`, shared by every subcommand.
struct DatabaseOptions: ParsableArguments {
    @Argument(help: "The database bundle (…/name.cblite2).")
    var database: String

    @Flag(help: "Upgrade a Couchbase Lite 1.x database in place before using it.")
    var upgrade = false

    /// The key of an encrypted database (a new one is created encrypted with it).
    @OptionGroup var encryption: EncryptionKeyOptions

    /// Opens the database; upgrades a 1.x one first only with `--upgrade`.
    func open(_ mode: DatabaseLocation.AccessMode) throws -> DatabaseCore {
        let location = try DatabaseLocation(path: database, encryptionKey: try encryption.key())
        if upgrade, case .legacySQLite = location.format {
            try LegacyUpgrade.upgradeInPlace(location, engine: try DatabaseLocation.engine(named: "sqlite"))
        }
        return try location.open(mode)
    }
}
