import Foundation

/// The test process's memory figures from `/proc/self/status` (Linux; nil elsewhere).
package enum ProcessMemory {
    /// The peak resident set size so far (VmHWM), in bytes.
    package static func peakResidentBytes() -> Int? { field("VmHWM:") }

    /// The current resident set size (VmRSS), in bytes.
    package static func residentBytes() -> Int? { field("VmRSS:") }

    private static func field(_ name: String) -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else {  // allowed: not Linux, no figure
            return nil
        }
        for line in status.split(separator: "\n") where line.hasPrefix(name) {
            let number = line.dropFirst(name.count).split(whereSeparator: { $0 == " " || $0 == "\t" }).first.flatMap { Int($0) }
            return number.map { $0 * 1024 }
        }
        return nil
    }
}
