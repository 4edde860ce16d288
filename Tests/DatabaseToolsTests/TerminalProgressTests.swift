import Foundation
import Testing
import TestSupport

/// On a terminal `cblite-convert` draws a progress bar in place (run under `script`, which
/// gives it a pseudo-terminal).
@Suite(.ownThreads) struct TerminalProgressTests {
    static let script = "/usr/bin/script"

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: script), "needs script(1) for a pseudo-terminal"))
    func convertDrawsABarWithRateOnATerminal() throws {
        try withTemporaryDirectory { directory in
            let source = try RichDatabase.make(.sqlite, in: directory)
            let tool = try #require(ToolRunner.productsDirectory).appendingPathComponent("cblite-convert").path
            let command = "\(tool) \(source.path) \(directory.appending("out.cblite2").path) --verify"
            let result = try ToolRunner.run(Self.script, ["-qec", command, "/dev/null"], absolute: true)
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.output.contains("\rrecords [########################] 100%"))
            #expect(result.output.contains("/s"))
            #expect(result.output.contains("\rverifying ["))
        }
    }
}
