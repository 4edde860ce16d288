import Fleece
import Foundation
import LiteDatabase

/// A saved document, as read from a database: its ID, revision and properties. Properties are
/// read lazily from the stored Fleece data; a `Document` never changes (see ``MutableDocument``).
///
/// ```swift
/// if let doc = database.document(withID: "hotel_1") {
///     let label = "\(doc.string(forKey: "name") ?? "?") at \(doc.revisionID ?? "")"
/// }
/// ```
public class Document: DictionaryProtocol, Equatable, Hashable, Sequence {
    /// The document ID.
    public let id: String
    /// The database the document was read from or saved to.
    weak var database: Database?
    /// The revision the properties were read from (nil before the first save).
    var stored: CurrentRevision?
    /// Keeps the Fleece bytes the properties point into alive.
    var body: FleeceDocument?
    /// The current revision's body when the document has it but has not opened it yet (a
    /// revision it just saved: trusted; or one handed over in a decoded tree: validated when
    /// opened), opened into ``body`` on first read.
    private var unopenedBody: (bytes: [UInt8], trusted: Bool)?
    private var loadedProperties: DictionaryStorage?
    /// The parsed JSON the document was made from, not yet read as properties
    /// (`MutableDocument(id:json:)`): a save writes it straight into the stored form.
    private(set) var parsedJSON: JSONTape?

    /// The properties (parsed from ``unparsedJSON``, or read from the stored body, on first use).
    var properties: DictionaryStorage {
        get {
            if let loadedProperties { return loadedProperties }
            let loaded = parsedJSON != nil ? openParsedJSON() : openStoredBody()
            loadedProperties = loaded
            parsedJSON = nil
            return loaded
        }
        set {
            loadedProperties = newValue
            parsedJSON = nil
        }
    }

    /// Points the document at a revision just saved; its body is opened when first read (a
    /// saved document is often dropped unread, e.g. in an import loop).
    func didSave(_ saved: StoredDocument, in database: Database) {
        self.database = database
        stored = CurrentRevision(saved)
        unopenedBody = saved.current?.body.map { ($0, true) }
        body = nil
        loadedProperties = nil
        parsedJSON = nil
    }

    private func openStoredBody() -> DictionaryStorage {
        let isMutable = self is MutableDocument
        if body == nil, !(stored?.isDeleted ?? true), let database, let unopened = unopenedBody {
            unopenedBody = nil
            do {
                let bytes = unopened.bytes.isEmpty ? StoredDocument.emptyDictionary : unopened.bytes
                body = try FleeceDocument(bytes: bytes, sharedKeys: database.core.sharedKeys, trusted: unopened.trusted)
            } catch {
                // The properties read as empty, but the document remembers why, so that saving
                // it (which would replace the stored content with nothing) fails instead.
                readFailure = error
                Database.log.log(.error, .database, "Cannot read the body of document \"\(id)\": \(error)")
            }
        }
        return DictionaryStorage(source: body?.root.dictionary, database: database, isMutable: isMutable)
    }

    /// Why the stored body could not be read, when it could not: such a document reads as
    /// empty and refuses to be saved.
    private(set) var readFailure: (any Error)?

    init(id: String, database: Database?, stored: CurrentRevision?, body: FleeceDocument?, mutable: Bool) {
        self.id = id
        self.database = database
        self.stored = stored
        self.body = body
        // A stored live revision without its body in hand is read on first use (and a body
        // that cannot be read is remembered as such), never taken for an empty document.
        if body == nil, let stored, !stored.isDeleted { return }
        loadedProperties = DictionaryStorage(source: body?.root.dictionary, database: database, isMutable: mutable)
    }

    /// A document showing the current revision of `stored` (a decoded tree), whose body is
    /// `body`, or, when that is nil, the tree's body, validated when first read.
    convenience init(id: String, database: Database?, stored: StoredDocument, body: FleeceDocument?, mutable: Bool) {
        self.init(id: id, database: database, stored: CurrentRevision(stored), body: body, mutable: mutable)
        if body == nil { unopenedBody = stored.current?.body.map { ($0, false) } }
    }

    /// Makes the properties come from `json`, a parsed JSON object.
    func setParsedJSON(_ json: JSONTape) {
        loadedProperties = nil
        parsedJSON = json
    }

    private func openParsedJSON() -> DictionaryStorage {
        let isMutable = self is MutableDocument
        guard let json = parsedJSON else {
            return DictionaryStorage(source: nil, database: database, isMutable: isMutable)
        }
        do {
            let encoder = FleeceEncoder()
            json.replay(to: encoder)
            let parsed = try FleeceDocument(bytes: try encoder.finish(), trusted: true)
            body = parsed
            return DictionaryStorage(source: parsed.root.dictionary, database: database, isMutable: isMutable)
        } catch {
            readFailure = error
            Database.log.log(.error, .database, "Cannot parse the JSON of document \"\(id)\": \(error)")
            return DictionaryStorage(source: nil, database: database, isMutable: isMutable)
        }
    }

    /// The current revision ID (nil for a document never saved).
    public var revisionID: String? { stored?.revisionID.string }
    /// The sequence of the document's last change (0 for a document never saved).
    public var sequence: UInt64 { stored?.sequence ?? 0 }
    /// Whether the document is deleted.
    var isDeleted: Bool { stored?.isDeleted ?? false }

    /// The number of entries.
    public var count: Int { properties.count }
    /// The property names: stored ones in stored order, then new ones in the order set.
    public var keys: [String] { properties.keys }
    /// The value of a property, or nil when it is missing.
    public func value(forKey key: String) -> Any? { properties.value(forKey: key) }
    /// Whether the property exists (even when it is null).
    public func contains(key: String) -> Bool { properties.contains(key) }

    /// The property as an array, or nil.
    public func array(forKey key: String) -> ArrayObject? { value(forKey: key) as? ArrayObject }
    /// The property as a dictionary, or nil.
    public func dictionary(forKey key: String) -> DictionaryObject? { value(forKey: key) as? DictionaryObject }

    // Discardable: the 2.0 guide's "Typed Accessors" calls `newTask.toDictionary()` on its own
    // line, and its code must compile without warnings.
    /// The properties as plain Swift values (nested dictionaries and arrays included).
    @discardableResult
    public func toDictionary() -> [String: Any] {
        var result: [String: Any] = [:]
        for key in keys {
            if let value = value(forKey: key) { result[key] = ValueConversion.plain(value) }
        }
        return result
    }

    /// A mutable copy to change and save.
    public func toMutable() -> MutableDocument {
        let copy = MutableDocument(id: id, database: database, stored: stored, body: body)
        copy.properties = properties.mutableCopy()
        copy.readFailure = readFailure
        return copy
    }

    /// A property as a fragment, for chained access: `doc["address"]["city"].string`.
    public subscript(key: String) -> Fragment { Fragment(value(forKey: key)) }

    /// Iterates the property names.
    public func makeIterator() -> IndexingIterator<[String]> { keys.makeIterator() }

    /// Equal when both have the same ID, come from the same database, and hold equal properties.
    public static func == (lhs: Document, rhs: Document) -> Bool {
        guard lhs.id == rhs.id, lhs.database?.path == rhs.database?.path, lhs.count == rhs.count else {
            return false
        }
        return lhs.keys.allSatisfy { key in
            rhs.contains(key: key) && ValueConversion.equal(lhs.value(forKey: key), rhs.value(forKey: key))
        }
    }

    /// Hashes what `==` compares.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(id)
        hasher.combine(count)
    }
}

/// A document being created or changed; save it with ``Database/saveDocument(_:)``.
///
/// ```swift
/// let doc = MutableDocument(id: "hotel_1")
///     .setString("Ritz", forKey: "name")
///     .setInt(5, forKey: "stars")
/// try database.saveDocument(doc)
/// ```
public final class MutableDocument: Document, MutableDictionaryProtocol {
    /// A new document with a generated ID.
    public convenience init() {
        self.init(id: nil)
    }

    /// A new document with the given ID (a generated one when nil).
    public init(id: String?) {
        super.init(id: id ?? Self.generateID(), database: nil, stored: nil, body: nil, mutable: true)
    }

    /// A new document with the given ID and properties.
    public convenience init(id: String?, data: [String: Any]) {
        self.init(id: id)
        setData(data)
    }

    /// A new document with a generated ID and the given properties.
    public convenience init(data: [String: Any]) {
        self.init(id: nil, data: data)
    }

    init(id: String, database: Database?, stored: CurrentRevision?, body: FleeceDocument?) {
        super.init(id: id, database: database, stored: stored, body: body, mutable: true)
    }

    /// The property as a mutable array, or nil.
    public override func array(forKey key: String) -> MutableArrayObject? { value(forKey: key) as? MutableArrayObject }
    /// The property as a mutable dictionary, or nil.
    public override func dictionary(forKey key: String) -> MutableDictionaryObject? {
        value(forKey: key) as? MutableDictionaryObject
    }

    /// Sets a property (see ``MutableDictionaryProtocol/setValue(_:forKey:)`` for the types allowed).
    @discardableResult public func setValue(_ value: Any?, forKey key: String) -> Self {
        properties.set(value, forKey: key)
        return self
    }

    /// Removes a property.
    @discardableResult public func removeValue(forKey key: String) -> Self {
        properties.removeValue(forKey: key)
        return self
    }

    /// Replaces every property with `data`.
    @discardableResult public func setData(_ data: [String: Any]) -> Self {
        properties.replaceAll(with: data)
        return self
    }

    /// A property as a fragment that can also set it: `doc["address"]["city"].value = "Paris"`.
    public override subscript(key: String) -> MutableFragment {
        MutableFragment(parent: .document(self, key))
    }

    /// A generated document ID: `-` followed by 22 URL-safe base64 characters of 16 random bytes,
    /// like Couchbase Lite makes them.
    static func generateID() -> String {
        let random = withUnsafeBytes(of: UUID().uuid) { Data($0) }
        let base64 = random.base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
        return "-" + base64
    }
}
