import ArgumentParser
import Fleece
import Foundation

/// `fleece`: converts between JSON and Fleece, lists Fleece layouts, makes and applies deltas.
@main
struct FleeceTool: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fleece",
        abstract: "Converts JSON ⇄ Fleece (Couchbase Lite 2.8 bytes), dumps layouts, makes and applies JSON deltas.",
        subcommands: [Encode.self, Decode.self, Dump.self, Delta.self, Patch.self])
}

/// A problem the tool reports on stderr before exiting with status 1.
struct ToolError: Error, CustomStringConvertible {
    let description: String
}

/// Reads a whole file, or stdin when `path` is nil or "-".
func readInput(_ path: String?) throws -> [UInt8] {
    guard let path, path != "-" else { return Array(FileHandle.standardInput.readDataToEndOfFile()) }
    guard let handle = FileHandle(forReadingAtPath: path) else {
        throw ToolError(description: "cannot read \"\(path)\": no such file or not readable")
    }
    defer { try? handle.close() }
    return Array(handle.readDataToEndOfFile())
}

/// Loads a shared-key table from a JSON array of strings (an empty table when the file is absent).
func loadSharedKeys(_ path: String?) throws -> SharedKeys? {
    guard let path else { return nil }
    guard let data = FileManager.default.contents(atPath: path) else { return SharedKeys() }
    let document = try data.withUnsafeBytes { try FleeceDocument(bytes: JSONConverter.fleece(fromJSONBytes: $0)) }
    guard let array = document.root.array else {
        throw ToolError(description: "shared keys file \"\(path)\" is not a JSON array of strings")
    }
    var keys: [String] = []
    for item in array {
        guard let key = item.string else { throw ToolError(description: "shared keys file \"\(path)\": item \(keys.count) is not a string") }
        keys.append(key)
    }
    return SharedKeys(keys: keys)
}

func writeOut(_ text: String) {
    FileHandle.standardOutput.write(Data(text.utf8))
}

/// Uppercase hex in 2-byte groups separated by spaces.
func hexGroups(_ bytes: [UInt8]) -> String {
    var groups: [String] = []
    var index = 0
    while index < bytes.count {
        let end = min(index + 2, bytes.count)
        groups.append(bytes[index..<end].map { String(format: "%02X", $0) }.joined())
        index = end
    }
    return groups.joined(separator: " ")
}

struct Encode: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "JSON in, Fleece bytes out.")

    @Flag(help: "Accept JSON5 input (unquoted keys, single quotes, comments, trailing commas).")
    var json5 = false

    @Option(name: .customLong("shared-keys"), help: "A JSON array of strings: the starting key table, rewritten after encoding.")
    var sharedKeys: String?

    @Flag(help: "Print uppercase hex in 2-byte groups instead of raw bytes.")
    var hex = false

    @Argument(help: "The JSON file (stdin when absent).")
    var file: String?

    func run() throws {
        let input = try readInput(file)
        let keys = try loadSharedKeys(sharedKeys)
        let bytes = try input.withUnsafeBytes { try JSONConverter.fleece(fromJSONBytes: $0, sharedKeys: keys, json5: json5) }
        if let keys, let sharedKeys {
            let table = try JSONConverter.json(fromFleece: try keys.persistedBytes())
            try Data((table + "\n").utf8).write(to: URL(fileURLWithPath: sharedKeys))
        }
        if hex { writeOut(hexGroups(bytes) + "\n") } else { FileHandle.standardOutput.write(Data(bytes)) }
    }
}

struct Decode: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Fleece in, JSON out.")

    @Flag(help: "Sort dictionary keys (canonical JSON) instead of stored order.")
    var canonical = false

    @Option(name: .customLong("shared-keys"), help: "A JSON array of strings: the key table the data was encoded with.")
    var sharedKeys: String?

    @Argument(help: "The Fleece file (stdin when absent).")
    var file: String?

    func run() throws {
        let input = try readInput(file)
        let keys = try loadSharedKeys(sharedKeys)
        writeOut(try JSONConverter.json(fromFleece: input, sharedKeys: keys, canonical: canonical) + "\n")
    }
}

struct Dump: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Annotated layout of Fleece bytes: offset, bytes, type, value.")

    @Option(name: .customLong("shared-keys"), help: "A JSON array of strings, to name integer keys.")
    var sharedKeys: String?

    @Argument(help: "The Fleece file (stdin when absent).")
    var file: String?

    func run() throws {
        writeOut(try FleeceDump.dump(readInput(file), sharedKeys: loadSharedKeys(sharedKeys)))
    }
}

struct Delta: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Prints the JSON delta from OLD to NEW (nothing when equal).")

    @Argument(help: "The old JSON file.") var old: String
    @Argument(help: "The new JSON file.") var new: String

    func run() throws {
        let oldDocument = try readInput(old).withUnsafeBytes { try FleeceDocument(bytes: JSONConverter.fleece(fromJSONBytes: $0)) }
        let newDocument = try readInput(new).withUnsafeBytes { try FleeceDocument(bytes: JSONConverter.fleece(fromJSONBytes: $0)) }
        if let delta = JSONDelta.create(from: oldDocument.root, to: newDocument.root) { writeOut(delta + "\n") }
    }
}

struct Patch: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Applies a JSON delta to OLD and prints the new JSON.")

    @Argument(help: "The old JSON file.") var old: String
    @Argument(help: "The delta JSON file.") var delta: String

    func run() throws {
        let oldDocument = try readInput(old).withUnsafeBytes { try FleeceDocument(bytes: JSONConverter.fleece(fromJSONBytes: $0)) }
        let deltaText = String(decoding: try readInput(delta), as: UTF8.self)
        let bytes = try JSONDelta.apply(deltaText, to: oldDocument.root)
        writeOut(try FleeceDocument(bytes: bytes).root.json() + "\n")
    }
}
