import FoundationEssentials
import LiteSupport

/// The on-disk location of a database: the `<name>.cblite2` folder holding the engine's data
/// file (`db.sqlite3` or `db.rocksdb/`) and the blob store (`Attachments/`).
package struct DatabaseBundle: Hashable, Sendable {
    /// The bundle folder's extension.
    package static let pathExtension = "cblite2"
    /// The blob store's folder inside the bundle.
    package static let attachmentsFolder = "Attachments"

    /// The database name (the folder name without `.cblite2`).
    package let name: String
    /// The folder that contains the bundle.
    package let directory: String

    /// The bundle of database `name` in `directory`.
    package init(name: String, directory: String) {
        self.name = name
        self.directory = directory
    }

    /// The bundle folder, with a trailing slash as Couchbase Lite reports `Database.path`.
    package var path: String {
        directory.pathAppending("\(name).\(Self.pathExtension)") + "/"
    }

    /// The blob store folder.
    package var attachmentsPath: String {
        path.pathAppending(Self.attachmentsFolder)
    }

    /// Whether the bundle folder exists.
    package var exists: Bool {
        var isDirectory = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && isDirectory
    }

    /// Checks a database name as Couchbase Lite does: not empty, no `/` or `:` (path
    /// separators on the platforms it runs on), not starting with `.`, at most 240 bytes.
    package static func validate(name: String) throws {
        guard !name.isEmpty else {
            throw DatabaseError(.invalidParameter, "a database name must not be empty")
        }
        guard name.utf8.count <= 240 else {
            throw DatabaseError(.invalidParameter, "database name \"\(name.prefix(40))…\" is longer than 240 bytes")
        }
        guard !name.hasPrefix("."), !name.contains("/"), !name.contains(":"), !name.contains("\0") else {
            throw DatabaseError(.invalidParameter,
                                "database name \"\(name)\" must not start with '.' or contain '/', ':' or NUL")
        }
    }
}
