import DatabaseTools
import LiteStorage
import Testing

/// Opens a bundle's data file with the engine whose files it holds.
enum DataFileOpener {
    static func open(_ location: DatabaseLocation, readOnly: Bool = false) throws -> any DataFile {
        let engine = try #require(location.engine)
        return try engine.open(at: engine.dataFilePath(inBundle: location.path), options: DataFileOptions(readOnly: readOnly))
    }
}
