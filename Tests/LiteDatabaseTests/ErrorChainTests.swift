import LiteStorage
import Testing
import TestSupport
@testable import LiteDatabase

/// A chain of errors prints as one line that states each fact once, the engine's code last.
@Suite(.ownThreads) struct ErrorChainTests {
    private let engine = EngineMessage(code: 1, "unknown function: fl_value()", library: "SQLite")

    private func occurrences(of part: String, in text: String) -> Int {
        text.components(separatedBy: part).count - 1
    }

    @Test func aStorageFailureMappedByTheCoreSaysEachFactOnce() {
        let storage = StorageError(.unexpectedError, "SQLite database \"/db.sqlite3\": unknown function: fl_value() "
                                   + "(while preparing INSERT)", underlying: engine)
        let core = DatabaseError(storage: storage, context: "saving document \"x\"")
        let text = core.description
        #expect(text == "saving document \"x\": SQLite database \"/db.sqlite3\": unknown function: fl_value() "
                + "(while preparing INSERT) [SQLite error code 1]")
        #expect(occurrences(of: "unknown function", in: text) == 1)
        #expect(!text.contains("cause:"))
    }

    @Test func causesThatAddFactsAreAppendedInOrder() {
        let inner = DatabaseError(.corruptData, "the shared-key table is corrupt", underlying: engine)
        let outer = DatabaseError(.cantOpenFile, "opening database \"travel\"", underlying: inner)
        #expect(outer.description == "opening database \"travel\": the shared-key table is corrupt: "
                + "unknown function: fl_value() [SQLite error code 1]")
    }

    @Test func anErrorWithoutCauseIsItsMessage() {
        #expect(DatabaseError(.notFound, "no database \"x\" at /tmp").description == "no database \"x\" at /tmp")
    }
}
