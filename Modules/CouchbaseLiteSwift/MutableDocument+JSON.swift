import Fleece
import Foundation

extension MutableDocument {
    /// A new document whose properties are the JSON object `json` (the spelling Couchbase Lite 3
    /// added). The JSON is checked now and parsed once: into the stored form when the document is
    /// saved, or into properties when one is read first.
    ///
    /// ```swift
    /// let doc = try MutableDocument(id: "hotel_1", json: #"{"name":"Ritz","stars":5}"#)
    /// ```
    /// - Throws: `.invalidParameter` when `json` is not valid JSON or not an object.
    public convenience init(id: String?, json: String) throws {
        let bytes = Array(json.utf8)
        do {
            try bytes.withUnsafeBytes { try JSONConverter.validate(json: $0) }
        } catch {
            throw CouchbaseLiteError(.invalidParameter, "document \(id.map { "\"\($0)\" " } ?? "")JSON is invalid: \(error)",
                                     underlying: error)
        }
        guard bytes.first(where: { !Self.isJSONWhitespace($0) }) == UInt8(ascii: "{") else {
            throw CouchbaseLiteError(.invalidParameter, "document JSON must be an object")
        }
        self.init(id: id)
        setUnparsedJSON(bytes)
    }

    private static func isJSONWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09
    }
}
