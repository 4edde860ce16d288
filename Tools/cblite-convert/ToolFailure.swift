import ArgumentParser
import Foundation

/// Reports a failure as one line on stderr and exits non-zero.
enum ToolFailure {
    /// Runs `body`; any error is printed as `cblite-convert: <message>` and becomes exit code 1.
    static func reporting(_ body: () throws -> Void) throws {
        do {
            try body()
        } catch let exit as ExitCode {
            throw exit
        } catch {
            let line = "\(error)".split(whereSeparator: \.isNewline).joined(separator: " ")
            FileHandle.standardError.write(Data("cblite-convert: \(line)\n".utf8))
            throw ExitCode.failure
        }
    }
}
