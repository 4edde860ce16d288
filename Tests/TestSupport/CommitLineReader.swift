import Foundation

/// Reads the `committed <n>` lines a crash writer child prints on its standard output.
package struct CommitLineReader {
    private let handle: FileHandle
    private var buffer = Data()

    /// Reads from `handle` (the read end of the child's stdout pipe).
    package init(_ handle: FileHandle) {
        self.handle = handle
    }

    /// Blocks until `count` more commits were reported or the pipe ended (the child exited),
    /// calling `onCommit` with each number.
    /// - Returns: the last number reported, or nil if none was.
    @discardableResult
    package mutating func read(commits count: Int, onCommit: (Int) -> Void = { _ in }) -> Int? {
        var seen = 0, last: Int?
        while seen < count {
            let chunk = handle.availableData
            if chunk.isEmpty { break }
            buffer.append(chunk)
            while let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: buffer[buffer.startIndex..<newline], as: UTF8.self)
                buffer.removeSubrange(buffer.startIndex...newline)
                if line.hasPrefix("committed "), let number = Int(line.dropFirst("committed ".count)) {
                    last = number
                    seen += 1
                    onCommit(number)
                }
            }
        }
        return last
    }
}
