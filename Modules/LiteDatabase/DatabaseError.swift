/// An error from the database core, numbered as Couchbase Lite 2.x numbers its errors.
///
/// The codes are those of the 2.x `CBLErrorDomain` (which mirror LiteCore's), so the public
/// `CouchbaseLiteError` carries them over unchanged.
package struct DatabaseError: Error, Sendable, CustomStringConvertible {
    /// A 2.x `CBLErrorDomain` error number.
    package struct Code: RawRepresentable, Hashable, Sendable {
        package let rawValue: Int
        package init(rawValue: Int) { self.rawValue = rawValue }

        package static let assertionFailed = Code(rawValue: 1)
        package static let unimplemented = Code(rawValue: 2)
        package static let badRevisionID = Code(rawValue: 4)
        package static let corruptRevisionData = Code(rawValue: 5)
        package static let notOpen = Code(rawValue: 6)
        package static let notFound = Code(rawValue: 7)
        package static let conflict = Code(rawValue: 8)
        package static let invalidParameter = Code(rawValue: 9)
        package static let unexpectedError = Code(rawValue: 10)
        package static let cantOpenFile = Code(rawValue: 11)
        package static let ioError = Code(rawValue: 12)
        package static let notWriteable = Code(rawValue: 14)
        package static let corruptData = Code(rawValue: 15)
        package static let busy = Code(rawValue: 16)
        package static let notInTransaction = Code(rawValue: 17)
        package static let unsupported = Code(rawValue: 19)
        package static let notADatabaseFile = Code(rawValue: 20)
        package static let wrongFormat = Code(rawValue: 21)
        package static let invalidQuery = Code(rawValue: 23)
        package static let databaseTooOld = Code(rawValue: 27)
        package static let databaseTooNew = Code(rawValue: 28)
        package static let badDocID = Code(rawValue: 29)
        package static let cantUpgradeDatabase = Code(rawValue: 30)
    }

    /// What kind of failure this is.
    package let code: Code
    /// What happened and what to do about it, for a person.
    package let message: String
    /// The error that caused this one, if any.
    package let underlying: (any Error)?

    package init(_ code: Code, _ message: String, underlying: (any Error)? = nil) {
        self.code = code
        self.message = message
        self.underlying = underlying
    }

    package var description: String {
        guard let underlying else { return message }
        return "\(message) (cause: \(underlying))"
    }
}
