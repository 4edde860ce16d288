import Foundation

/// The names and bytes of every file under a folder, to prove an operation modified nothing.
///
/// ```swift
/// let before = try FolderSnapshot(directory.url)
/// #expect(throws: StorageError.corrupt) { try engine.open(path) }
/// #expect(try FolderSnapshot(directory.url) == before)
/// ```
package struct FolderSnapshot: Equatable, CustomStringConvertible {
    /// Relative path → contents.
    package let files: [String: Data]

    /// Reads every regular file under `url`, leaving out names `ignoring` accepts.
    package init(_ url: URL, ignoring: (String) -> Bool = { _ in false }) throws {
        var files: [String: Data] = [:]
        let base = url.standardizedFileURL.path
        if let walker = FileManager.default.enumerator(atPath: base) {
            while let relative = walker.nextObject() as? String {
                let full = base + "/" + relative
                var isFolder: ObjCBool = false
                guard FileManager.default.fileExists(atPath: full, isDirectory: &isFolder),
                      !isFolder.boolValue, !ignoring((relative as NSString).lastPathComponent) else { continue }
                files[relative] = try Data(contentsOf: URL(fileURLWithPath: full))
            }
        }
        self.files = files
    }

    /// The file names and sizes.
    package var description: String {
        files.keys.sorted().map { "\($0) (\(files[$0]?.count ?? 0) bytes)" }.joined(separator: ", ")
    }
}
