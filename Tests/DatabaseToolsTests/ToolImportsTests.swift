import Foundation
import Testing
import TestSupport

/// `cblite` links neither Foundation (only FoundationEssentials) nor the network stack, so that
/// its start does not pay for their protocol conformances (decisions Tools-17 and Tools-18). One
/// `import Foundation` in any module it links would bring all of Foundation back; this keeps it out.
@Suite(.ownThreads) struct ToolImportsTests {
    /// The modules `cblite` and `cblite-convert` link, as folders of the repository.
    private static let toolModules = ["Modules/LiteSupport", "Modules/Fleece", "Modules/LiteStorage",
                                      "Modules/SQLiteStorage", "Modules/RocksDBStorage", "Modules/BlobStore",
                                      "Modules/LiteDatabase", "Modules/LiteText", "Modules/LiteQuery",
                                      "Modules/Upgrader", "Modules/DatabaseConversion", "Modules/DatabaseTools",
                                      "Tools/CommandLineSupport",
                                      "Tools/cblite", "Tools/cblite-convert"]

    private static let repository = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    @Test func toolModulesImportNoFoundationAndNoNetworkStack() throws {
        let forbidden = ["Foundation", "FoundationNetworking", "CouchbaseLiteSwift", "LiteReplicator", "BLIP",
                         "BLIPWebSocket", "NIOCore", "NIOPosix", "NIOSSL"]
        var offenders: [String] = []
        var filesRead = 0
        for module in Self.toolModules {
            let folder = Self.repository.appendingPathComponent(module)
            let files = try #require(FileManager.default.enumerator(atPath: folder.path))
            for case let file as String in files where file.hasSuffix(".swift") {
                filesRead += 1
                let text = try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8)
                for line in text.split(separator: "\n") where line.hasPrefix("import ") || line.contains(" import ") {
                    let name = line.split(separator: " ").last.map(String.init) ?? ""
                    if forbidden.contains(name), !line.hasPrefix("//") { offenders.append("\(module)/\(file): \(line)") }
                }
            }
        }
        #expect(filesRead > 100)
        #expect(offenders.isEmpty, "\(offenders.joined(separator: "\n"))")
    }
}
