import CSQLite
import LiteStorage

extension SQLiteDataFile {
    /// Runs SQLite's `PRAGMA integrity_check` (every page, every index entry) on a reader
    /// connection; each line it reports other than `ok` is a problem.
    package func checkIntegrity() throws -> [String] {
        try checkOpen()
        return try withReader { connection in
            let statement = try connection.prepare("PRAGMA integrity_check")
            defer { statement.finalize() }
            var problems: [String] = []
            while try statement.step() {
                let line = statement.text(0)
                if line != "ok" { problems.append("SQLite: \(line)") }
            }
            return problems
        }
    }
}
