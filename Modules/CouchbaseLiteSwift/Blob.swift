import BlobStore
import Fleece
import Foundation
import LiteSupport

/// Binary content stored beside the database (an image, a PDF…), referred to by a document
/// property. The content is written to the database's blob store when the document is saved,
/// and read back on demand; documents only hold its digest, length and content type.
///
/// ```swift
/// let blob = Blob(contentType: "image/png", data: pngData)
/// doc.setBlob(blob, forKey: "avatar")
/// try database.saveDocument(doc)
/// let bytes = database.document(withID: doc.id)?.blob(forKey: "avatar")?.content
/// ```
public final class Blob: @unchecked Sendable, Equatable, Hashable {
    // Unchecked: every mutable field lives in `state`, behind a lock, but a blob made from an
    // `InputStream` (not Sendable) keeps it there until the save reads it, once, under the lock.

    private enum Content {
        case data(Data)
        case stream(InputStream)
        case file(URL)
        case stored
    }

    private struct State {
        var content: Content
        var digest: String?
        var length: UInt64
        var store: BlobStore?
    }

    private let state: Locked<State>
    /// The MIME type, e.g. `image/jpeg`.
    public let contentType: String?

    /// A blob holding `data`.
    public init(contentType: String, data: Data) {
        self.contentType = contentType
        state = Locked(State(content: .data(data), digest: BlobKey(hashing: data).string,
                            length: UInt64(data.count), store: nil))
    }

    /// A blob whose content is read from `contentStream` when the document is saved (streamed
    /// into the blob store, not held in memory).
    public init(contentType: String, contentStream: InputStream) {
        self.contentType = contentType
        state = Locked(State(content: .stream(contentStream), digest: nil, length: 0, store: nil))
    }

    /// A blob whose content is the file at `fileURL`, copied into the blob store on save.
    ///
    /// - Throws: `.invalidParameter` when the URL is not a readable file.
    public init(contentType: String, fileURL: URL) throws {
        guard fileURL.isFileURL else {
            throw CouchbaseLiteError(.invalidParameter, "blob source \(fileURL) is not a file URL")
        }
        let attributes: [FileAttributeKey: Any]
        do {
            attributes = try FileManager.default.attributesOfItem(atPath: fileURL.path)
        } catch {
            throw CouchbaseLiteError(.invalidParameter, "blob source \(fileURL.path) cannot be read", underlying: error)
        }
        self.contentType = contentType
        let size = (attributes[.size] as? NSNumber)?.uint64Value ?? 0
        state = Locked(State(content: .file(fileURL), digest: nil, length: size, store: nil))
    }

    /// A blob a document refers to (read from its stored properties).
    init(properties: FleeceDict, database: Database?) {
        contentType = properties[BlobKeys.contentType]?.string ?? properties[BlobKeys.legacyContentType]?.string
        let digest = properties[BlobKeys.digest]?.string
        let length = properties[BlobKeys.length].map { $0.uint64 } ?? 0
        state = Locked(State(content: .stored, digest: digest, length: length, store: database?.blobStore))
    }

    /// A blob for a 1.x-style `_attachments` entry (a dictionary with `digest`, no `@type`).
    convenience init?(legacyAttachment dictionary: DictionaryObject) {
        guard let digest = dictionary.string(forKey: BlobKeys.digest), digest.hasPrefix("sha1-") else { return nil }
        let contentType = dictionary.string(forKey: BlobKeys.contentType)
            ?? dictionary.string(forKey: BlobKeys.legacyContentType)
        self.init(digest: digest, length: UInt64(max(0, dictionary.int64(forKey: BlobKeys.length))),
                  contentType: contentType, store: dictionary.storage.database?.blobStore)
    }

    private init(digest: String, length: UInt64, contentType: String?, store: BlobStore?) {
        self.contentType = contentType
        state = Locked(State(content: .stored, digest: digest, length: length, store: store))
    }

    /// The content's length in bytes (0 for a stream-based blob not yet saved).
    public var length: UInt64 { state.withLock { $0.length } }

    /// The content's SHA-1 digest as `sha1-<base64>` (nil for a stream or file blob not yet saved).
    public var digest: String? { state.withLock { $0.digest } }

    /// The properties stored in the document: `@type`, `content_type`, `digest`, `length`.
    public var properties: [String: Any] {
        var result: [String: Any] = [BlobKeys.type: BlobKeys.blobType, BlobKeys.length: Int(clamping: length)]
        if let digest { result[BlobKeys.digest] = digest }
        if let contentType { result[BlobKeys.contentType] = contentType }
        return result
    }

    /// The whole content, or nil when it cannot be read (the reason is logged; use
    /// ``contentData()`` to get it as an error).
    public var content: Data? {
        do {
            return try contentData()
        } catch {
            Database.log.log(.warning, .database, "Blob \(digest ?? "(unsaved)"): \(error)")
            return nil
        }
    }

    /// The whole content; throws a clear error when the stored file is missing or corrupt.
    public func contentData() throws -> Data {
        let (content, digest, length, store) = state.withLock { ($0.content, $0.digest, $0.length, $0.store) }
        switch content {
        case .data(let data): return data
        case .file(let url):
            do { return try Data(contentsOf: url) } catch {
                throw CouchbaseLiteError(.ioError, "blob source \(url.path) cannot be read", underlying: error)
            }
        case .stream:
            throw CouchbaseLiteError(.unsupported, "a stream-based blob's content is available once its document is saved")
        case .stored:
            let (store, key) = try storeAndKey(store, digest)
            do {
                return try store.data(for: key, expectedLength: Int64(clamping: length))
            } catch {
                throw CouchbaseLiteError(.notFound, "blob \(key.string): \(error)", underlying: error)
            }
        }
    }

    /// A stream of the content, read from the blob store without loading it into memory and
    /// checked against the digest as it is read.
    public var contentStream: InputStream? {
        let (content, digest, length, store) = state.withLock { ($0.content, $0.digest, $0.length, $0.store) }
        switch content {
        case .data(let data): return InputStream(data: data)
        case .file(let url): return InputStream(url: url)
        case .stream: return nil
        case .stored:
            guard let (store, key) = try? storeAndKey(store, digest) else { return nil }   // allowed: 2.x's contentStream is nil when unreadable
            // Verifies length and digest as it reads; a corrupt file ends the stream with an error.
            return try? store.makeInputStream(for: key, expectedLength: Int64(clamping: length))   // allowed: as above; reads nothing, deletes nothing
        }
    }

    private func storeAndKey(_ store: BlobStore?, _ digest: String?) throws -> (BlobStore, BlobKey) {
        guard let digest, let key = try? BlobKey(digest) else {   // allowed: thrown as corruptData just below
            throw CouchbaseLiteError(.corruptData, "blob has no valid digest (\(digest ?? "none"))")
        }
        guard let store else {
            throw CouchbaseLiteError(.notFound, "blob \(digest) is not attached to an open database")
        }
        return (store, key)
    }

    /// Writes the content to `store` (once) so a document can refer to it.
    func install(into store: BlobStore) throws {
        // The whole install runs under the blob's lock: two saves of documents holding this
        // blob (on two threads) must not read its stream at the same time, and the digest and
        // content change together.
        try state.withLock { state in
            let key: BlobKey
            let length: UInt64
            do {
                switch state.content {
                case .stored:
                    if state.store?.directory == store.directory { return }
                    if state.store == nil {
                        // Known only by its metadata (a blob dictionary in JSON): it can refer
                        // to content this database already holds, and to nothing else.
                        guard let digest = state.digest, let key = try? BlobKey(digest) else {   // allowed: reported just below
                            throw CouchbaseLiteError(.corruptData, "blob has no valid digest (\(state.digest ?? "none"))")
                        }
                        guard store.contains(key) else {
                            throw CouchbaseLiteError(.notFound, "blob \(digest) is not in this database; save its content "
                                                     + "first (Blob(contentType:data:)) or drop the reference")
                        }
                        state.store = store
                        return
                    }
                    // A blob read from another database: copy its content over.
                    let (source, sourceKey) = try storeAndKey(state.store, state.digest)
                    try source.transfer(sourceKey, to: store)
                    state.store = store
                    return
                case .data(let data):
                    key = try store.write(data)
                    length = UInt64(data.count)
                case .stream(let stream):
                    key = try store.write(from: stream)
                    length = try UInt64(store.size(of: key))
                case .file(let url):
                    key = try store.write(contentsOf: url)
                    length = try UInt64(store.size(of: key))
                }
            } catch {
                throw CouchbaseLiteError(error, context: "cannot store blob content", fallback: .ioError)
            }
            state.digest = key.string
            state.length = length
            state.store = store
            state.content = .stored
        }
    }

    public static func == (lhs: Blob, rhs: Blob) -> Bool {
        if lhs === rhs { return true }
        if let left = lhs.digest, let right = rhs.digest { return left == right }
        return false
    }

    /// Hashes what `==` compares.
    public func hash(into hasher: inout Hasher) {
        // Nothing: equality is by digest, and a stream or file blob has no digest until its
        // document is saved, so any hash input would change under a set or dictionary holding
        // the blob (or differ from an equal data blob's). A constant hash is always consistent.
        hasher.combine(0 as UInt8)
    }
}
