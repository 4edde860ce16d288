import DatabaseConversion
import Fleece
import FoundationEssentials
import Glibc
import LiteSupport

/// Reads the documents of an import input one at a time: a JSON Lines file in 1 MiB blocks (so
/// a file of any size is never held whole), a file holding one JSON array, or a folder of
/// `.json` files.
struct ImportReader {
    /// One input document: its JSON text, a view into the block it was read with.
    struct Item {
        var json: ArraySlice<UInt8>
        /// The ID to use when the document has no ID property (a folder entry's file name).
        var fallbackID: String?
        /// Where it came from, for error messages: `line N`, `element N`, or a file path.
        private var place: Place
        private let path: String

        fileprivate enum Place {
            case line(Int)
            case element(Int)
            case file
        }

        fileprivate init(json: ArraySlice<UInt8>, fallbackID: String? = nil, place: Place, path: String) {
            self.json = json
            self.fallbackID = fallbackID
            self.place = place
            self.path = path
        }

        /// The input and position, as error messages name them.
        var origin: String {
            switch place {
            case let .line(number): return "\(path) line \(number)"
            case let .element(number): return "\(path) element \(number)"
            case .file: return path
            }
        }
    }

    private enum Source {
        case lines(ReadOnlyFile)
        case elements([UInt8], [Range<Int>])
        case files([String])
    }

    static let blockSize = 1 << 20

    private let path: String
    private var source: Source
    /// JSON Lines: the current block and where the next line starts in it.
    private var block: [UInt8] = []
    private var lineStart = 0
    private var atEndOfFile = false
    private var counter = 0

    /// Opens the input at `path`.
    /// - Throws: `.notFound` when there is nothing there, `.ioFailure` when it cannot be read,
    ///   `.invalidArgument` when a file starting with `[` is not a JSON array.
    init(path: String) throws {
        self.path = path
        var isDirectory = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw DatabaseToolsError(.notFound, "no file or folder at \(path)")
        }
        if isDirectory {
            let names = try DatabaseToolsError.wrapping(.ioFailure, "cannot list \(path)") {
                try FileManager.default.contentsOfDirectory(atPath: path)
            }
            source = .files(names.filter { $0.hasSuffix(".json") }.sorted().reversed())
            return
        }
        guard let handle = ReadOnlyFile(path: path) else {
            throw DatabaseToolsError(.ioFailure, "cannot read \(path)")
        }
        source = .lines(handle)
        try refill()
        if let first = block[lineStart...].first(where: { !Self.isWhitespace($0) }), first == UInt8(ascii: "[") {
            handle.close()
            let bytes = try Self.readWhole(path)
            source = .elements(bytes, try Self.arrayElements(of: bytes, path: path).reversed())
        }
    }

    /// The next document, or nil at the end of the input.
    mutating func next() throws -> Item? {
        switch source {
        case .lines:
            return try nextLine()
        case .elements(let bytes, var spans):
            guard let span = spans.popLast() else { return nil }
            source = .elements(bytes, spans)
            counter += 1
            return Item(json: bytes[span], place: .element(counter), path: path)
        case .files(var names):
            guard let name = names.popLast() else { return nil }
            source = .files(names)
            let file = path.pathAppending(name)
            return Item(json: ArraySlice(try Self.readWhole(file)), fallbackID: String(name.dropLast(5)), place: .file, path: file)
        }
    }

    private mutating func nextLine() throws -> Item? {
        while true {
            let found: Int? = block.withUnsafeBytes { buffer in
                guard lineStart < buffer.count, let base = buffer.baseAddress,
                      let hit = memchr(base + lineStart, 0x0A, buffer.count - lineStart) else { return nil }
                return base.distance(to: UnsafeRawPointer(hit))
            }
            let end: Int
            if let found {
                end = found
            } else if atEndOfFile {
                guard lineStart < block.count else { return nil }
                end = block.count
            } else {
                try refill()
                continue
            }
            counter += 1
            let line = block[lineStart..<end]
            lineStart = end + 1
            if line.contains(where: { !Self.isWhitespace($0) }) {
                return Item(json: line, place: .line(counter), path: path)
            }
        }
    }

    /// Starts a new block holding the unfinished line and the next 1 MiB of the file. A new
    /// array each time, so items handed out earlier keep theirs.
    private mutating func refill() throws {
        guard case let .lines(handle) = source else { return }
        let carried = lineStart < block.count ? block[lineStart...] : []
        let descriptor = handle.descriptor
        var failure: Int32 = 0
        // Read straight into the new block (no Data in between).
        let next = [UInt8](unsafeUninitializedCapacity: carried.count + Self.blockSize) { buffer, count in
            guard let base = buffer.baseAddress else { return }
            count = carried.count
            _ = buffer.initialize(from: carried)
            while count < buffer.count {
                let got = read(descriptor, base + count, buffer.count - count)
                if got > 0 {
                    count += got
                } else if got == 0 {
                    break
                } else if errno != EINTR {
                    failure = errno
                    break
                }
            }
        }
        guard failure == 0 else {
            throw DatabaseToolsError(.ioFailure, "cannot read \(path): \(String(cString: strerror(failure)))")
        }
        if next.count == carried.count {
            atEndOfFile = true
            handle.close()
        }
        block = next
        lineStart = 0
    }

    @inline(__always)
    static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }

    private static func readWhole(_ path: String) throws -> [UInt8] {
        try DatabaseToolsError.wrapping(.ioFailure, "cannot read \(path)") {
            [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        }
    }

    /// The spans of the elements of the JSON array in `bytes`, after checking its syntax.
    private static func arrayElements(of bytes: [UInt8], path: String) throws -> [Range<Int>] {
        try DatabaseToolsError.wrapping(.invalidArgument, "\(path) is not valid JSON") {
            try bytes.withUnsafeBytes { try JSONConverter.validate(json: $0) }
        }
        let spans = DocumentImporter.topLevelElements(of: bytes)
        guard bytes.last(where: { !isWhitespace($0) }) == UInt8(ascii: "]") else {
            throw DatabaseToolsError(.invalidArgument, "\(path) is not a JSON array")
        }
        return spans
    }
}
