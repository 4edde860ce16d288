import ArgumentParser
import Glibc
import LiteSupport

/// Reports a failure as one line on stderr (`<tool>: <message>`) and exits non-zero; shared by
/// `cblite` and `cblite-convert`.
package enum ToolFailure {
    /// Parses the command line and runs `Command`, turning every error — argument errors
    /// included — into one line on stderr; `--help` still prints its full text.
    package static func main<Command: ParsableCommand>(_: Command.Type) -> Never {
        do {
            var command = try Command.parseAsRoot()
            try command.run()
            Command.exit()
        } catch {
            let code = Command.exitCode(for: error)
            if code == .success { Command.exit(withError: error) }
            let message = Command.fullMessage(for: error)
                .split(whereSeparator: \.isNewline).first.map(String.init) ?? ""
            if !message.isEmpty {
                let line = message.hasPrefix("Error: ") ? String(message.dropFirst(7)) : message
                StandardStreams.writeError("\(toolName): \(line) (see --help)\n")
            }
            Glibc.exit(code.rawValue)
        }
    }

    /// Runs `body`; any error is printed as `<tool>: <message>` and becomes exit code 1.
    package static func reporting(_ body: () throws -> Void) throws {
        do {
            try body()
        } catch let exit as ExitCode {
            throw exit
        } catch {
            let line = "\(error)".split(whereSeparator: \.isNewline).joined(separator: " ")
            StandardStreams.writeError("\(toolName): \(line)\n")
            throw ExitCode.failure
        }
    }

    /// The running executable's name, as the user typed it.
    private static var toolName: String {
        CommandLine.arguments.first?.split(separator: "/").last.map(String.init) ?? "cblite"
    }
}
