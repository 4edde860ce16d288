import Foundation

/// Finds which of many byte strings occur in files: each needle is indexed by its first
/// ``prefixLength`` bytes, and every window of that length of a file is looked up.
package struct PlaintextScanner {
    /// How many leading bytes index a needle (needles shorter than this are ignored).
    package static let prefixLength = 6
    private let needles: [[UInt8]]
    private let byPrefix: [UInt64: [Int]]

    /// Prepares to look for `needles`.
    package init(needles: [[UInt8]]) {
        self.needles = needles
        var byPrefix: [UInt64: [Int]] = [:]
        for (index, needle) in needles.enumerated() where needle.count >= Self.prefixLength {
            byPrefix[Self.prefix(needle[...]), default: []].append(index)
        }
        self.byPrefix = byPrefix
    }

    private static func prefix(_ bytes: ArraySlice<UInt8>) -> UInt64 {
        bytes.prefix(prefixLength).reduce(0) { $0 << 8 | UInt64($1) }
    }

    /// "file: needle" for each needle found in each file under `folder` (every file, recursively).
    package func occurrences(inFolder folder: URL) throws -> [String] {
        var found: [String] = []
        let enumerator = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: [.isRegularFileKey])
        while let url = enumerator?.nextObject() as? URL {
            guard try url.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile == true else { continue }
            let bytes = [UInt8](try Data(contentsOf: url))
            for index in occurrences(in: bytes) {
                found.append("\(url.lastPathComponent): \(String(decoding: needles[index].prefix(40), as: UTF8.self))")
            }
        }
        return found
    }

    private func occurrences(in bytes: [UInt8]) -> Set<Int> {
        var found = Set<Int>()
        guard bytes.count >= Self.prefixLength else { return found }
        let mask: UInt64 = (1 << (8 * UInt64(Self.prefixLength))) - 1
        var window: UInt64 = 0
        bytes.withUnsafeBufferPointer { buffer in
            for position in 0..<buffer.count {
                window = (window << 8 | UInt64(buffer[position])) & mask
                guard position + 1 >= Self.prefixLength, let candidates = byPrefix[window] else { continue }
                let start = position + 1 - Self.prefixLength
                for candidate in candidates where !found.contains(candidate) {
                    let needle = needles[candidate]
                    if start + needle.count <= buffer.count,
                       needle.indices.allSatisfy({ buffer[start + $0] == needle[$0] }) {
                        found.insert(candidate)
                    }
                }
            }
        }
        return found
    }
}
