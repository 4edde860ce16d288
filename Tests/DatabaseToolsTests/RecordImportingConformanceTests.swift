import LiteStorage
import Testing
import TestSupport

/// The exact-import extension of the storage seam behaves the same in every engine.
@Suite(.ownThreads) struct RecordImportingConformanceTests {
    @Test(arguments: StorageEngineKind.allCases)
    func importedRecordKeepsSequenceAndExpiration(engine: StorageEngineKind) throws {
        try withTemporaryDataFile(engine, StorageConformance.importedRecordKeepsSequenceAndExpiration)
    }

    @Test(arguments: StorageEngineKind.allCases)
    func reimportReplacesRecordAndIndexes(engine: StorageEngineKind) throws {
        try withTemporaryDataFile(engine, StorageConformance.reimportReplacesRecordAndIndexes)
    }

    @Test(arguments: StorageEngineKind.allCases)
    func countersAreSetExactly(engine: StorageEngineKind) throws {
        try withTemporaryDataFile(engine, StorageConformance.countersAreSetExactly)
    }

    @Test(arguments: StorageEngineKind.allCases)
    func importRejectsTakenOrZeroSequence(engine: StorageEngineKind) throws {
        try withTemporaryDataFile(engine, StorageConformance.importRejectsTakenOrZeroSequence)
    }

    @Test(arguments: StorageEngineKind.allCases)
    func lastSequenceBelowRecordsIsRefused(engine: StorageEngineKind) throws {
        try withTemporaryDataFile(engine, StorageConformance.lastSequenceBelowRecordsIsRefused)
    }
}
