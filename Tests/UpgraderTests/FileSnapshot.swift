import TestSupport
import Foundation

/// Every file under a folder with its SHA-1, size and modification time, to prove that reading
/// a database changed nothing (no byte, no new `-wal`/`-shm` file).
struct FileSnapshot: Equatable, CustomStringConvertible {
    struct Entry: Equatable {
        let sha1: [UInt8]
        let size: Int
        let modified: Date?
    }

    let entries: [String: Entry]

    init(of root: URL) throws {
        var entries: [String: Entry] = [:]
        let fileManager = FileManager.default
        let rootPath = root.standardizedFileURL.path
        guard let walker = fileManager.enumerator(atPath: rootPath) else {
            self.entries = [:]
            return
        }
        while let relative = walker.nextObject() as? String {
            let path = rootPath + "/" + relative
            var isDirectory: ObjCBool = false
            guard fileManager.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue else {
                entries[relative + "/"] = Entry(sha1: [], size: 0, modified: nil)
                continue
            }
            let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
            let attributes = try fileManager.attributesOfItem(atPath: path)
            entries[relative] = Entry(sha1: ReferenceSHA1.digest(bytes), size: bytes.count,
                                      modified: attributes[.modificationDate] as? Date)
        }
        self.entries = entries
    }

    var description: String { entries.keys.sorted().joined(separator: ", ") }
}
