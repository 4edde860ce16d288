import Foundation

/// A scratch folder for one benchmark run, removed afterwards.
final class Scratch {
    let root: String
    private var counter = 0

    init() throws {
        root = NSTemporaryDirectory() + "cblite-bench-storage-\(ProcessInfo.processInfo.processIdentifier)"
        try? FileManager.default.removeItem(atPath: root)
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
    }

    /// A new, empty bundle folder and the data file path inside it.
    func fresh(_ fileName: String) throws -> String {
        counter += 1
        let bundle = root + "/run\(counter).cblite2"
        try FileManager.default.createDirectory(atPath: bundle, withIntermediateDirectories: true)
        return bundle + "/" + fileName
    }

    deinit { try? FileManager.default.removeItem(atPath: root) }
}
