import Fleece
import Foundation

extension MutableDocument {
    /// A new document whose properties are the JSON object `json` (the spelling Couchbase Lite 3
    /// added). The JSON is checked now and parsed once, into a list of its values that a save
    /// writes into the stored form (or, when a property is read first, into properties).
    ///
    /// ```swift
    /// let doc = try MutableDocument(id: "hotel_1", json: #"{"name":"Ritz","stars":5}"#)
    /// ```
    /// - Throws: `.invalidParameter` when `json` is not valid JSON or not an object.
    public convenience init(id: String?, json: String) throws {
        let tape: JSONTape
        do {
            tape = try JSONTape.parse(json: json)
        } catch {
            throw CouchbaseLiteError(.invalidParameter, "document \(id.map { "\"\($0)\" " } ?? "")JSON is invalid: \(error)",
                                     underlying: error)
        }
        guard tape.isDictionary else {
            throw CouchbaseLiteError(.invalidParameter, "document JSON must be an object")
        }
        self.init(id: id)
        setParsedJSON(tape)
    }
}
