import LiteStorage
import LiteSupport

extension DatabaseError {
    /// Carries a storage engine's error over with its 2.x number, saying what was being done and
    /// keeping it as the cause.
    package init(storage error: StorageError, context: String) {
        self.init(error.code, "\(context): \(error.message)", underlying: error)
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
