import DatabaseConversion
import Dispatch
import Fleece
import FoundationEssentials
import LiteDatabase
import LiteSupport

/// The importer's encoding stage, on a thread of its own: reads the input and turns each
/// document into its ID and Fleece body (parse, checks, shared keys, encoding), in chunks,
/// ahead of the importer's thread storing them. When the first transaction reaches its limit
/// before the end of the input, it checks the rest (``validateRest()``) before that
/// transaction commits, so bad input imports nothing.
///
/// It encodes only the documents the importer has allowed (``allow(_:)``), which the importer
/// does inside its write transaction for that transaction's documents, and the importer takes
/// every chunk it allowed (or calls ``settle()``) before the transaction ends: the keys this
/// stage adds to the shared-key table then belong to the transaction that persists them (or
/// forgets them when it fails).
final class ImportEncodingStage: Sendable {

    /// One document ready to store.
    struct Document: Sendable {
        var id: String
        var body: EncodedRevisionBody
        /// The input and position, for error messages.
        var origin: String
    }

    /// Documents in input order, then possibly the end of the input or the first error (the
    /// documents before it are good).
    struct Chunk: Sendable {
        var documents: [Document] = []
        var atEnd = false
        var error: DatabaseToolsError?
    }

    /// Documents per chunk: small enough that the importer soon has work, large enough that
    /// handing over costs nothing.
    static let chunkSize = 64

    private struct State: Sendable {
        /// Documents the importer allowed so far, and those the stage handed out in chunks.
        var allowed = 0
        var encoded = 0
        var ready: [Chunk] = []
        var working = false
        var finished = false
        var stopping = false
        var validationRequested = false
        var validation: Result<Int, DatabaseToolsError>?
    }

    private let state = ThreadCondition(State())

    /// What the stage's thread does next.
    private enum Step {
        case stop
        case validate(consumed: Int)
        case encode(count: Int)
    }

    /// Starts the stage's thread on the input at `path`; it waits for the first allowance.
    init(path: String, idKey: String, sharedKeys: SharedKeys) {
        // A queue of its own: the stage's loop holds its thread until the input ends.
        DispatchQueue(label: "cblite.import.encoding").async { [self] in
            run(path: path, idKey: idKey, sharedKeys: sharedKeys)
        }
    }

    private func run(path: String, idKey: String, sharedKeys: SharedKeys) {
        var reader: ImportReader?
        var readerError: DatabaseToolsError?
        do {
            reader = try ImportReader(path: path)
        } catch {
            readerError = DatabaseToolsError(error, code: .ioFailure, context: "cannot read \(path)")
        }
        let encoder = FleeceEncoder(sharedKeys: sharedKeys)
        while true {
            let step = state.withLock(when: { state in
                state.stopping || (state.validationRequested && state.validation == nil)
                    || (!state.finished && state.encoded < state.allowed)
            }) { state -> Step in
                if state.stopping { return .stop }
                state.working = true
                if state.validationRequested && state.validation == nil { return .validate(consumed: state.encoded) }
                return .encode(count: min(Self.chunkSize, state.allowed - state.encoded))
            }
            let count: Int
            switch step {
            case .stop:
                return
            case .validate(let consumed):
                let result = validateRest(of: &reader, readerError: readerError, consumed: consumed, path: path, idKey: idKey)
                state.withLock { state in
                    state.validation = result
                    state.working = false
                    self.state.broadcast()
                }
                continue
            case .encode(let allowed):
                count = allowed
            }

            var chunk = Chunk()
            if let readerError {
                chunk.error = readerError
            } else {
                chunk.documents.reserveCapacity(count)
                do {
                    while chunk.documents.count < count {
                        // Optional chaining mutates the reader in place (a copy would copy its block).
                        guard let item = try reader?.next() else { chunk.atEnd = true; break }
                        chunk.documents.append(try Self.encode(item, idKey: idKey, sharedKeys: sharedKeys, encoder: encoder))
                    }
                } catch {
                    chunk.error = DatabaseToolsError(error, code: .ioFailure, context: "cannot read \(path)")
                }
            }

            state.withLock { state in
                state.working = false
                state.encoded += chunk.documents.count
                if chunk.atEnd || chunk.error != nil { state.finished = true }
                state.ready.append(chunk)
                self.state.broadcast()
            }
        }
    }

    /// Checks every document after the `consumed` ones handed out (syntax, object, ID), then
    /// opens the input again at the first of them for the chunks to come. Returns the number of
    /// documents in the input.
    private func validateRest(of reader: inout ImportReader?, readerError: DatabaseToolsError?, consumed: Int,
                              path: String, idKey: String) -> Result<Int, DatabaseToolsError> {
        if let readerError { return .failure(readerError) }
        do {
            var count = consumed
            while let item = try reader?.next() {
                try DocumentImporter.checkDocument(item, idKey: idKey)
                count += 1
            }
            var again = try ImportReader(path: path)
            for _ in 0..<consumed { _ = try again.next() }
            reader = again
            return .success(count)
        } catch {
            return .failure(DatabaseToolsError(error, code: .ioFailure, context: "cannot read \(path)"))
        }
    }

    /// Checks the rest of the input, past the documents taken so far, without encoding it
    /// (the first transaction may commit only once the whole input is known to be good); the
    /// chunks allowed afterwards continue with the first document not taken yet.
    /// - Returns: the number of documents in the input.
    /// - Throws: the error of the first bad document after those taken, or of reading the input.
    func validateRest() throws -> Int {
        state.withLock { state in
            state.validationRequested = true
            self.state.broadcast()
        }
        let result = state.withLock(when: { $0.validation != nil }) { $0.validation }
        guard let result else { throw DatabaseToolsError(.ioFailure, "the import's check gave no result") }
        return try result.get()
    }

    /// Lets the stage encode `count` more documents (it starts at once).
    func allow(_ count: Int) {
        state.withLock { state in
            state.allowed += count
            self.state.broadcast()
        }
    }

    /// Waits for the next chunk of allowed documents; nil when every allowed document was
    /// taken (or the input ended and its last chunk was taken).
    func take() -> Chunk? {
        state.withLock(when: { state in
            !state.ready.isEmpty || (!state.working && (state.finished || state.encoded >= state.allowed))
        }) { state in
            state.ready.isEmpty ? nil : state.ready.removeFirst()
        }
    }

    /// Waits until the stage is idle and drops what it encoded but nobody took, so that it no
    /// longer touches the shared keys; it encodes nothing more until allowed again. The
    /// importer calls it before leaving a transaction, whichever way it ends.
    func settle() {
        // Two steps under the lock, as the wait between them releases it anyway; nothing can
        // start a chunk in between, as nothing is allowed.
        state.withLock { $0.allowed = $0.encoded }
        state.withLock(when: { !$0.working }) { state in
            state.allowed = state.encoded
            state.ready.removeAll()
        }
    }

    /// Ends the stage's thread (after the chunk in progress, if any).
    func stop() {
        settle()
        state.withLock { state in
            state.stopping = true
            self.state.broadcast()
        }
    }

    /// One input document as the importer stores it. When its ID comes from a property, the
    /// body is made as Couchbase Lite 2.8's `cblite cp` makes it, so revision IDs match the
    /// real tool's on the same file: as if the whole object were encoded (its ID key joins the
    /// shared keys like any other key), then copied without that key, entries in stored order
    /// (``JSONTape`` does both in one encoding).
    static func encode(_ item: ImportReader.Item, idKey: String, sharedKeys: SharedKeys,
                       encoder: FleeceEncoder) throws -> Document {
        // The tape reads the line where it lies, inside this closure only.
        let id: String = try item.json.withUnsafeBytes { json in
            try JSONTape.withParsed(json: json) { parsed in
                let tape = try DatabaseToolsError.wrapping(.invalidArgument, "\(item.origin) is not valid JSON") {
                    try parsed.get()
                }
                // The same checks as the check's, so the first bad document is reported the same
                // way whichever pass reaches it first.
                guard tape.isDictionary else { throw DocumentImporter.notAnObject(item) }
                let (present, property) = tape.topLevelValue(forKey: idKey)
                if present && property == nil { throw DocumentImporter.idNotAString(item, idKey) }
                encoder.reset()
                if property != nil {
                    tape.addKeys(to: sharedKeys)
                    tape.write(to: encoder, omittingTopLevelKey: idKey)
                } else {
                    try DatabaseToolsError.wrapping(.invalidArgument, "\(item.origin) is not valid JSON") {
                        _ = try JSONConverter.write(json: json, to: encoder, skipping: ["_id"])
                    }
                }
                return property ?? item.fallbackID ?? UUID().uuidString.lowercased()
            }
        }
        let body = try DatabaseToolsError.wrapping(.invalidArgument, "\(item.origin): cannot save document \"\(id)\"") {
            try EncodedRevisionBody(bytes: encoder.finish(), sharedKeys: sharedKeys)
        }
        return Document(id: id, body: body, origin: item.origin)
    }
}
