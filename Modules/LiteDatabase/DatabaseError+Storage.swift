import LiteStorage

extension DatabaseError {
    /// Maps a storage engine's error to the 2.x error numbers, keeping it as the cause.
    package init(storage error: StorageError, context: String) {
        let code: Code = switch error.code {
        case .notFound: .notFound
        case .conflict: .conflict
        case .notADatabase: .notADatabaseFile
        case .corrupt: .corruptData
        case .databaseTooOld: .databaseTooOld
        case .databaseTooNew: .databaseTooNew
        case .notInTransaction: .notInTransaction
        case .readOnly: .notWriteable
        case .closed: .notOpen
        case .busy: .busy
        case .invalidParameter: .invalidParameter
        case .unsupported: .unsupported
        case .ioFailure: .ioError
        default: .unexpectedError
        }
        self.init(code, "\(context): \(error.message)", underlying: error)
    }

    /// Runs `body`, turning storage errors into database errors that say what was being done.
    package static func mapping<T>(_ context: @autoclosure () -> String, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as StorageError {
            throw DatabaseError(storage: error, context: context())
        }
    }
}
