import LiteStorage
import Testing
import TestSupport

/// The storage conformance suite: every behaviour in `StorageConformance`, once per engine.
/// Test names state the behaviour; the argument names the engine.
@Suite(.ownThreads) struct KeyStoreConformance {
    @Test(arguments: StorageEngineKind.allCases)
    func setFlagsKeepsTheSequence(engine: StorageEngineKind) throws {
        try withTemporaryDataFile(engine, StorageConformance.setFlagsKeepsTheSequence)
    }

    @Test(arguments: StorageEngineKind.allCases)
    func addFlagsHonoursTheSequence(engine: StorageEngineKind) throws {
        try withTemporaryDataFile(engine, StorageConformance.addFlagsHonoursTheSequence)
    }

    @Test(arguments: StorageEngineKind.allCases)
    func compactKeepsData(engine: StorageEngineKind) throws {
        try withTemporaryDataFile(engine, StorageConformance.compactKeepsData)
    }

    @Test(arguments: StorageEngineKind.allCases)
    func byteKeysAreOrderedUnsigned(engine: StorageEngineKind) throws {
        try withTemporaryDataFile(engine, StorageConformance.byteKeysAreOrderedUnsigned)
    }

    @Test(arguments: StorageEngineKind.allCases)
    func prefixScanReturnsOnlyThePrefix(engine: StorageEngineKind) throws {
        try withTemporaryDataFile(engine, StorageConformance.prefixScanReturnsOnlyThePrefix)
    }

    @Test(arguments: StorageEngineKind.allCases)
    func byteRangeExcludesUpperBound(engine: StorageEngineKind) throws {
        try withTemporaryDataFile(engine, StorageConformance.byteRangeExcludesUpperBound)
    }

    @Test(arguments: StorageEngineKind.allCases)
    func byteKeyWritesReplaceAndDelete(engine: StorageEngineKind) throws {
        try withTemporaryDataFile(engine, StorageConformance.byteKeyWritesReplaceAndDelete)
    }

    @Test(arguments: StorageEngineKind.allCases)
    func byteKeyPutsInBulkAsOneByOne(engine: StorageEngineKind) throws {
        try withTemporaryDataFile(engine, StorageConformance.byteKeyPutsInBulkAsOneByOne)
    }

    @Test(arguments: StorageEngineKind.allCases)
    func transactionReadsManyOwnWrites(engine: StorageEngineKind) throws {
        try withTemporaryDataFile(engine, StorageConformance.transactionReadsManyOwnWrites)
    }

    @Test(arguments: StorageEngineKind.allCases)
    func byteKeyStoresAreListedAndDeleted(engine: StorageEngineKind) throws {
        try withTemporaryDataFile(engine, StorageConformance.byteKeyStoresAreListedAndDeleted)
    }

    @Test(arguments: StorageEngineKind.allCases)
    func keyStoresAreIndependentAndDeletable(engine: StorageEngineKind) throws {
        try withTemporaryDataFile(engine, StorageConformance.keyStoresAreIndependentAndDeletable)
    }

    @Test(arguments: StorageEngineKind.allCases)
    func invalidStoreNameIsRefused(engine: StorageEngineKind) throws {
        try withTemporaryDataFile(engine, StorageConformance.invalidStoreNameIsRefused)
    }

    @Test(arguments: StorageEngineKind.allCases)
    func thousandKeyStoresWork(engine: StorageEngineKind) throws {
        try withTemporaryDataFile(engine, StorageConformance.thousandKeyStoresWork)
    }

    @Test(arguments: StorageEngineKind.allCases)
    func expirationIsSetReadAndCleared(engine: StorageEngineKind) throws {
        try withTemporaryDataFile(engine, StorageConformance.expirationIsSetReadAndCleared)
    }

    @Test(arguments: StorageEngineKind.allCases)
    func expirationSurvivesUpdateAndGoesWithPurge(engine: StorageEngineKind) throws {
        try withTemporaryDataFile(engine, StorageConformance.expirationSurvivesUpdateAndGoesWithPurge)
    }

    @Test(arguments: StorageEngineKind.allCases)
    func abortedExpirationIsGone(engine: StorageEngineKind) throws {
        try withTemporaryDataFile(engine, StorageConformance.abortedExpirationIsGone)
    }

    @Test(arguments: StorageEngineKind.allCases)
    func expirationColumnSeenByLaterTransactions(engine: StorageEngineKind) throws {
        try withTemporaryDataFile(engine, StorageConformance.expirationColumnSeenByLaterTransactions)
    }

    @Test(arguments: StorageEngineKind.allCases)
    func tenMegabyteBodyRoundTrips(engine: StorageEngineKind) throws {
        try withTemporaryDataFile(engine, StorageConformance.tenMegabyteBodyRoundTrips)
    }

    @Test(arguments: StorageEngineKind.allCases)
    func anotherFilesTransactionIsRefused(engine: StorageEngineKind) throws {
        try StorageConformance.anotherFilesTransactionIsRefused(engine)
    }

    @Test(arguments: StorageEngineKind.allCases)
    func uncommittedWritesAreInvisibleToOtherThreads(engine: StorageEngineKind) throws {
        try withTemporaryDataFile(engine, StorageConformance.uncommittedWritesAreInvisibleToOtherThreads)
    }

    @Test(arguments: StorageEngineKind.allCases)
    func abortDiscardsEverything(engine: StorageEngineKind) throws {
        try withTemporaryDataFile(engine, StorageConformance.abortDiscardsEverything)
    }

    @Test(arguments: StorageEngineKind.allCases)
    func abortDiscardsCreatedKeyStore(engine: StorageEngineKind) throws {
        try withTemporaryDataFile(engine, StorageConformance.abortDiscardsCreatedKeyStore)
    }

    @Test(arguments: StorageEngineKind.allCases)
    func nestedWriteJoinsOuterTransaction(engine: StorageEngineKind) throws {
        try withTemporaryDataFile(engine, StorageConformance.nestedWriteJoinsOuterTransaction)
    }

    @Test(arguments: StorageEngineKind.allCases)
    func snapshotIsStableWhileWriterCommits(engine: StorageEngineKind) throws {
        try withTemporaryDataFile(engine, StorageConformance.snapshotIsStableWhileWriterCommits)
    }

    @Test(arguments: StorageEngineKind.allCases)
    func commitObserverSeesSequenceRange(engine: StorageEngineKind) throws {
        try withTemporaryDataFile(engine, StorageConformance.commitObserverSeesSequenceRange)
    }

    @Test(arguments: StorageEngineKind.allCases)
    func concurrentWritersAreSerialised(engine: StorageEngineKind) throws {
        try withTemporaryDataFile(engine, StorageConformance.concurrentWritersAreSerialised)
    }

    @Test(arguments: StorageEngineKind.allCases)
    func readersSeeWholeTransactionsWhileOneWrites(engine: StorageEngineKind) throws {
        try withTemporaryDataFile(engine, StorageConformance.readersSeeWholeTransactionsWhileOneWrites)
    }

    @Test(arguments: StorageEngineKind.allCases)
    func recordReadsBack(engine: StorageEngineKind) throws {
        try withTemporaryDataFile(engine, StorageConformance.recordReadsBack)
    }

    @Test(arguments: StorageEngineKind.allCases)
    func missingRecordIsNil(engine: StorageEngineKind) throws {
        try withTemporaryDataFile(engine, StorageConformance.missingRecordIsNil)
    }

    @Test(arguments: StorageEngineKind.allCases)
    func metaOnlyReadSkipsBody(engine: StorageEngineKind) throws {
        try withTemporaryDataFile(engine, StorageConformance.metaOnlyReadSkipsBody)
    }

    @Test(arguments: StorageEngineKind.allCases)
    func recordIsFoundBySequence(engine: StorageEngineKind) throws {
        try withTemporaryDataFile(engine, StorageConformance.recordIsFoundBySequence)
    }

    @Test(arguments: StorageEngineKind.allCases)
    func purgeRemovesRecordAndCounts(engine: StorageEngineKind) throws {
        try withTemporaryDataFile(engine, StorageConformance.purgeRemovesRecordAndCounts)
    }

    @Test(arguments: StorageEngineKind.allCases)
    func countsHonourDeletedFlag(engine: StorageEngineKind) throws {
        try withTemporaryDataFile(engine, StorageConformance.countsHonourDeletedFlag)
    }

    @Test(arguments: StorageEngineKind.allCases)
    func insertOnlyRejectsExistingKey(engine: StorageEngineKind) throws {
        try withTemporaryDataFile(engine, StorageConformance.insertOnlyRejectsExistingKey)
    }

    @Test(arguments: StorageEngineKind.allCases)
    func staleWriteIsRejected(engine: StorageEngineKind) throws {
        try withTemporaryDataFile(engine, StorageConformance.staleWriteIsRejected)
    }

    @Test(arguments: StorageEngineKind.allCases)
    func replacingMissingKeyIsAConflict(engine: StorageEngineKind) throws {
        try withTemporaryDataFile(engine, StorageConformance.replacingMissingKeyIsAConflict)
    }

    @Test(arguments: StorageEngineKind.allCases)
    func unconditionalWriteReplaces(engine: StorageEngineKind) throws {
        try withTemporaryDataFile(engine, StorageConformance.unconditionalWriteReplaces)
    }

    @Test(arguments: StorageEngineKind.allCases)
    func sequencesIncreaseAndAreNeverReused(engine: StorageEngineKind) throws {
        try withTemporaryDataFile(engine, StorageConformance.sequencesIncreaseAndAreNeverReused)
    }

    @Test(arguments: StorageEngineKind.allCases)
    func lastSequenceSurvivesPurgeOfNewest(engine: StorageEngineKind) throws {
        try withTemporaryDataFile(engine, StorageConformance.lastSequenceSurvivesPurgeOfNewest)
    }

    @Test(arguments: StorageEngineKind.allCases)
    func enumerationByKeyHonoursRangeAndDeleted(engine: StorageEngineKind) throws {
        try withTemporaryDataFile(engine, StorageConformance.enumerationByKeyHonoursRangeAndDeleted)
    }

    @Test(arguments: StorageEngineKind.allCases)
    func enumerationByKeyDescends(engine: StorageEngineKind) throws {
        try withTemporaryDataFile(engine, StorageConformance.enumerationByKeyDescends)
    }

    @Test(arguments: StorageEngineKind.allCases)
    func enumerationOrderIsBytewise(engine: StorageEngineKind) throws {
        try withTemporaryDataFile(engine, StorageConformance.enumerationOrderIsBytewise)
    }

    @Test(arguments: StorageEngineKind.allCases)
    func enumerationBySequenceReturnsLaterChanges(engine: StorageEngineKind) throws {
        try withTemporaryDataFile(engine, StorageConformance.enumerationBySequenceReturnsLaterChanges)
    }

    @Test(arguments: StorageEngineKind.allCases)
    func enumerationFiltersByRequiredFlags(engine: StorageEngineKind) throws {
        try withTemporaryDataFile(engine, StorageConformance.enumerationFiltersByRequiredFlags)
    }

    @Test(arguments: StorageEngineKind.allCases)
    func enumerationInsideTransactionSeesItsWrites(engine: StorageEngineKind) throws {
        try withTemporaryDataFile(engine, StorageConformance.enumerationInsideTransactionSeesItsWrites)
    }

    @Test(arguments: StorageEngineKind.allCases)
    func byteScanInsideTransactionSeesItsWrites(engine: StorageEngineKind) throws {
        try withTemporaryDataFile(engine, StorageConformance.byteScanInsideTransactionSeesItsWrites)
    }
}

/// Conformance checks that open, close and reopen files themselves.
@Suite(.ownThreads) struct DataFileConformance {
    @Test(arguments: StorageEngineKind.allCases)
    func dataSurvivesReopen(engine: StorageEngineKind) throws {
        try StorageConformance.dataSurvivesReopen(engine)
    }

    @Test(arguments: StorageEngineKind.allCases)
    func readOnlyFileRefusesWrites(engine: StorageEngineKind) throws {
        try StorageConformance.readOnlyFileRefusesWrites(engine)
    }

    @Test(arguments: StorageEngineKind.allCases)
    func closedFileRefusesUse(engine: StorageEngineKind) throws {
        try StorageConformance.closedFileRefusesUse(engine)
    }

    @Test(arguments: StorageEngineKind.allCases)
    func missingFileIsNotCreatedWithoutCreate(engine: StorageEngineKind) throws {
        try StorageConformance.missingFileIsNotCreatedWithoutCreate(engine)
    }

    @Test(arguments: StorageEngineKind.allCases)
    func engineRecognisesOnlyItsOwnFiles(engine: StorageEngineKind) throws {
        try StorageConformance.engineRecognisesOnlyItsOwnFiles(engine)
    }

    @Test(arguments: StorageEngineKind.allCases)
    func secondInstanceWriterWaitsForFirst(engine: StorageEngineKind) throws {
        try StorageConformance.secondInstanceWriterWaitsForFirst(engine)
    }

    @Test(arguments: StorageEngineKind.allCases)
    func closingWithOpenEnumeratorIsSafe(engine: StorageEngineKind) throws {
        try StorageConformance.closingWithOpenEnumeratorIsSafe(engine)
    }
    @Test(arguments: StorageEngineKind.allCases)
    func commitsThroughAnotherInstanceAreObserved(engine: StorageEngineKind) throws {
        try StorageConformance.commitsThroughAnotherInstanceAreObserved(engine)
    }
}
