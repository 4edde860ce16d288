import Fleece
import Foundation

extension MutableDocument {
    /// A new document whose properties are the JSON object `json` (the spelling Couchbase Lite 3
    /// added). The JSON is parsed straight into Fleece, and saved without re-parsing.
    ///
    /// ```swift
    /// let doc = try MutableDocument(id: "hotel_1", json: #"{"name":"Ritz","stars":5}"#)
    /// ```
    /// - Throws: `.invalidParameter` when `json` is not valid JSON or not an object.
    public convenience init(id: String?, json: String) throws {
        let body: FleeceDocument
        do {
            body = try FleeceDocument(bytes: JSONConverter.fleece(fromJSON: json), trusted: true)
        } catch {
            throw CouchbaseLiteError(.invalidParameter, "document \(id.map { "\"\($0)\"" } ?? "") JSON is invalid: \(error)",
                                     underlying: error)
        }
        guard body.root.dictionary != nil else {
            throw CouchbaseLiteError(.invalidParameter, "document JSON must be an object, not \(body.root.type)")
        }
        self.init(id: id ?? Self.generateID(), database: nil, stored: nil, body: body)
    }
}
