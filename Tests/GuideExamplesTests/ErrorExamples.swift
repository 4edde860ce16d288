import CouchbaseLiteSwift
import Foundation
import Testing
import TestSupport

/// Errors bridge to `NSError` as 2.x's do: domain `CBLErrorDomain`, the 2.x code.
@Suite(.ownThreads) struct ErrorExamples {
    @Test(arguments: StorageEngineKind.allCases)
    func aMissingDocumentIsCBLErrorNotFound(engine: StorageEngineKind) throws {
        try withTravelSample(engine) { database in
            var code: Int?
            // tag::error-handling[]
            do {
                try database.purgeDocument(withID: "no-such-hotel")
            } catch {
                let error = error as NSError
                if error.domain == CBLErrorDomain && error.code == CBLErrorNotFound {
                    print("Nothing to purge")
                }
                code = error.code
            }
            // end::error-handling[]
            #expect(code == CBLErrorNotFound)
        }
    }

    @Test func bridgedErrorsCarryDomainCodeMessageAndCause() {
        let cause = CouchbaseLiteError(.ioError, "disk full")
        let error: Error = CouchbaseLiteError(.cantOpenFile, "cannot open \"travel\"", underlying: cause)
        let bridged = error as NSError
        #expect(bridged.domain == "CBLErrorDomain")
        #expect(bridged.domain == CouchbaseLiteError.domain)
        #expect(bridged.code == CBLErrorCantOpenFile)
        #expect(bridged.localizedDescription == "cannot open \"travel\"")
        #expect((bridged.userInfo[NSUnderlyingErrorKey] as? NSError)?.code == CBLErrorIOError)
        #expect(error.localizedDescription == "cannot open \"travel\"")
    }

    @Test func codeConstantsHaveThe2xNumbers() {
        #expect(CBLErrorAssertionFailed == 1)
        #expect(CBLErrorNotFound == CouchbaseLiteError.Code.notFound.rawValue)
        #expect(CBLErrorConflict == CouchbaseLiteError.Code.conflict.rawValue)
        #expect(CBLErrorUnreadableDatabase == CouchbaseLiteError.Code.notADatabaseFile.rawValue)
        #expect(CBLErrorCantUpgradeDatabase == 30)
        #expect(CBLErrorNetworkBase == 5000 && CBLErrorInvalidRedirect == 5012)
        #expect(CBLErrorHTTPAuthRequired == 10401 && CBLErrorHTTPServiceUnavailable == 10503)
        #expect(CBLErrorWebSocketGoingAway == 11001 && CBLErrorWebSocketCantFulfill == 11011)
    }
}
