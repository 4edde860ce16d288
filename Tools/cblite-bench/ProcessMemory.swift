import Foundation

/// The process's resident memory, read from `/proc/self/status` (Linux).
enum ProcessMemory {
    struct Sample {
        /// VmRSS, bytes.
        var resident: Int
        /// VmHWM (the peak of VmRSS), bytes.
        var peak: Int
    }

    static func current() -> Sample? {
        guard let text = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return nil }
        var values: [String: Int] = [:]
        for line in text.split(separator: "\n") {
            let parts = line.split(whereSeparator: { $0 == ":" || $0 == " " || $0 == "\t" })
            if parts.count >= 2, let kilobytes = Int(parts[1]) { values[String(parts[0])] = kilobytes * 1024 }
        }
        guard let resident = values["VmRSS"], let peak = values["VmHWM"] else { return nil }
        return Sample(resident: resident, peak: peak)
    }

    /// Resets VmHWM to the current VmRSS (Linux ≥ 4.0: `5` into `/proc/self/clear_refs`).
    static func resetPeak() -> Bool {
        guard let handle = FileHandle(forWritingAtPath: "/proc/self/clear_refs") else { return false }
        defer { try? handle.close() }
        return (try? handle.write(contentsOf: Data("5".utf8))) != nil
    }
}
