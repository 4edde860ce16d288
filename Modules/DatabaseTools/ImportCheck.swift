import Foundation
import LiteSupport

/// The importer's first pass, on a thread of its own: reads the whole input and checks every
/// document (syntax, object, ID property) while the second pass is already saving the first
/// batch. That batch is committed only after ``wait()`` says the whole input is good, so bad
/// input still imports nothing, but the check costs no time of its own on a machine with a
/// second core.
final class ImportCheck: Sendable {
    private let outcome = Locked<Result<Int, DatabaseToolsError>?>(nil)
    private let finished = DispatchSemaphore(value: 0)

    /// Starts checking the input at `path`.
    init(path: String, idKey: String) {
        let outcome = self.outcome
        let finished = self.finished
        Thread.detachNewThread {
            let result: Result<Int, DatabaseToolsError>
            do {
                var reader = try ImportReader(path: path)
                var count = 0
                while let item = try reader.next() {
                    try DocumentImporter.checkDocument(item, idKey: idKey)
                    count += 1
                }
                result = .success(count)
            } catch let error as DatabaseToolsError {
                result = .failure(error)
            } catch {
                result = .failure(DatabaseToolsError(.ioFailure, "cannot read \(path)", underlying: error))
            }
            outcome.withLock { $0 = result }
            finished.signal()
        }
    }

    /// Whether the check has finished (either way).
    var isFinished: Bool { outcome.withLock { $0 != nil } }

    /// Waits for the check; returns the number of documents.
    /// - Throws: the error of the first bad document, or of reading the input.
    func wait() throws -> Int {
        if !isFinished { finished.wait(); finished.signal() }
        guard let result = outcome.withLock({ $0 }) else {
            throw DatabaseToolsError(.ioFailure, "the import check ended without a result")
        }
        return try result.get()
    }
}
