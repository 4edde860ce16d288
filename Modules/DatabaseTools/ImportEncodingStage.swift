import Fleece
import Foundation
import LiteSupport

/// The importer's encoding stage, on a thread of its own: reads the input and turns each
/// document into its ID and Fleece body (parse, checks, shared keys, encoding), a chunk at a
/// time when asked, while the importer's thread stores the previous chunk.
///
/// It only works between ``request(_:)`` and ``take()``, which the importer calls inside its
/// write transaction: the keys this stage adds to the shared-key table then belong to that
/// transaction, which persists them (or forgets them when it fails) after the stage stopped
/// touching the table.
final class ImportEncodingStage: Sendable {
    /// One document ready to store.
    struct Document: Sendable {
        var id: String
        var body: [UInt8]
        /// The input and position, for error messages.
        var origin: String
    }

    /// What one request produced: documents in input order, then possibly the end of the
    /// input or the first error (the documents before it are good).
    struct Chunk: Sendable {
        var documents: [Document] = []
        var atEnd = false
        var error: DatabaseToolsError?
    }

    private struct State {
        var requested: Int?
        var stopping = false
        var chunk: Chunk?
    }

    private let state = Locked(State())
    private let requestPosted = DispatchSemaphore(value: 0)
    private let chunkReady = DispatchSemaphore(value: 0)
    /// Whether a request is posted and its chunk not taken yet (used by the importer's thread only).
    private let outstanding = Locked(false)

    /// Starts the stage's thread on the input at `path`; it waits for the first request.
    init(path: String, idKey: String, sharedKeys: SharedKeys) {
        let state = self.state
        let requestPosted = self.requestPosted
        let chunkReady = self.chunkReady
        Thread.detachNewThread {
            var reader: ImportReader?
            var readerError: DatabaseToolsError?
            do {
                reader = try ImportReader(path: path)
            } catch let error as DatabaseToolsError {
                readerError = error
            } catch {
                readerError = DatabaseToolsError(.ioFailure, "cannot read \(path)", underlying: error)
            }
            let encoder = FleeceEncoder(sharedKeys: sharedKeys)
            var finished = false
            while true {
                requestPosted.wait()
                let (count, stopping) = state.withLock { ($0.requested ?? 0, $0.stopping) }
                if stopping { break }
                var chunk = Chunk()
                if let readerError {
                    chunk.error = readerError
                } else if finished || reader == nil {
                    chunk.atEnd = true
                } else {
                    chunk.documents.reserveCapacity(count)
                    do {
                        while chunk.documents.count < count {
                            guard let item = try reader?.next() else { chunk.atEnd = true; finished = true; break }
                            chunk.documents.append(try Self.encode(item, idKey: idKey, sharedKeys: sharedKeys,
                                                                   encoder: encoder))
                        }
                    } catch let error as DatabaseToolsError {
                        chunk.error = error
                        finished = true
                    } catch {
                        chunk.error = DatabaseToolsError(.ioFailure, "cannot read \(path)", underlying: error)
                        finished = true
                    }
                }
                state.withLock { $0.requested = nil; $0.chunk = chunk }
                chunkReady.signal()
            }
        }
    }

    /// Asks for the next `count` documents; the stage starts on them at once.
    func request(_ count: Int) {
        state.withLock { $0.requested = max(1, count) }
        outstanding.withLock { $0 = true }
        requestPosted.signal()
    }

    /// Waits for the chunk of the last request.
    func take() -> Chunk {
        chunkReady.wait()
        outstanding.withLock { $0 = false }
        return state.withLock { state in
            defer { state.chunk = nil }
            return state.chunk ?? Chunk(error: DatabaseToolsError(.ioFailure, "the import's encoding stage gave no chunk"))
        }
    }

    /// Waits until the stage is idle (a posted request finished), so that it no longer touches
    /// the shared keys; its chunk is dropped. The importer calls it before leaving a
    /// transaction that failed.
    func settle() {
        if outstanding.withLock({ $0 }) { _ = take() }
    }

    /// Ends the stage's thread (after the chunk in progress, if any).
    func stop() {
        settle()
        state.withLock { $0.stopping = true }
        requestPosted.signal()
    }

    /// One input document as the importer stores it. When its ID comes from a property, the
    /// body is made as Couchbase Lite 2.8's `cblite cp` makes it, so revision IDs match the
    /// real tool's on the same file: as if the whole object were encoded (its ID key joins the
    /// shared keys like any other key), then copied without that key, entries in stored order
    /// (``JSONTape`` does both in one encoding).
    static func encode(_ item: ImportReader.Item, idKey: String, sharedKeys: SharedKeys,
                       encoder: FleeceEncoder) throws -> Document {
        let tape = try DatabaseToolsError.wrapping(.invalidArgument, "\(item.origin) is not valid JSON") {
            try item.json.withUnsafeBytes { try JSONTape.parse(json: $0) }
        }
        // The same checks as the check's, so the first bad document is reported the same way
        // whichever pass reaches it first.
        guard tape.isDictionary else { throw DocumentImporter.notAnObject(item) }
        let (present, property) = tape.topLevelValue(forKey: idKey)
        if present && property == nil { throw DocumentImporter.idNotAString(item, idKey) }
        let id = property ?? item.fallbackID ?? UUID().uuidString.lowercased()
        encoder.reset()
        if property != nil {
            tape.addKeys(to: sharedKeys)
            tape.write(to: encoder, omittingTopLevelKey: idKey)
        } else {
            try DatabaseToolsError.wrapping(.invalidArgument, "\(item.origin) is not valid JSON") {
                try item.json.withUnsafeBytes { _ = try JSONConverter.write(json: $0, to: encoder, skipping: ["_id"]) }
            }
        }
        let body = try DatabaseToolsError.wrapping(.invalidArgument, "\(item.origin): cannot save document \"\(id)\"") {
            try encoder.finish()
        }
        return Document(id: id, body: body, origin: item.origin)
    }
}
