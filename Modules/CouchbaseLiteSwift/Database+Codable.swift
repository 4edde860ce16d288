import Fleece
import Foundation

extension Database {
    /// Saves an `Encodable` value as the document `id` (its JSON form becomes the properties).
    ///
    /// ```swift
    /// struct Hotel: Codable { var name: String; var stars: Int }
    /// try database.saveDocument(from: Hotel(name: "Ritz", stars: 5), withID: "hotel_1")
    /// let hotel = try database.document(withID: "hotel_1", as: Hotel.self)
    /// ```
    public func saveDocument<T: Encodable>(from value: T, withID id: String,
                                           concurrencyControl: ConcurrencyControl = .lastWriteWins) throws {
        let json: Data
        do {
            json = try JSONEncoder().encode(value)
        } catch {
            throw CouchbaseLiteError(.invalidParameter, "cannot encode \(T.self) for document \"\(id)\"", underlying: error)
        }
        let data = try CouchbaseLiteError.wrapping("converting \(T.self) to a document") {
            try JSONSerialization.jsonObject(with: json)
        }
        guard let properties = data as? [String: Any] else {
            throw CouchbaseLiteError(.invalidParameter, "\(T.self) does not encode as a JSON object; a document needs one")
        }
        let document = try loadDocument(id: id, includeDeleted: true)?.toMutable() ?? MutableDocument(id: id)
        document.setData(properties)
        try saveDocument(document, concurrencyControl: concurrencyControl)
    }

    /// The document `id` decoded as `T`, or nil when there is no such document.
    ///
    /// - Throws: `.invalidParameter` when the document's properties do not decode as `T`.
    public func document<T: Decodable>(withID id: String, as type: T.Type) throws -> T? {
        guard let document = try loadDocument(id: id, includeDeleted: false) else { return nil }
        do {
            return try JSONDecoder().decode(T.self, from: Data(document.toJSON().utf8))
        } catch {
            throw CouchbaseLiteError(.invalidParameter, "document \"\(id)\" does not decode as \(T.self)", underlying: error)
        }
    }
}
