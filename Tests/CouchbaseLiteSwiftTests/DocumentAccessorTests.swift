import CouchbaseLiteSwift
import Foundation
import Testing
import TestSupport

@Suite(.ownThreads) struct DocumentAccessorTests {
    private static let date = Date(timeIntervalSince1970: 1_600_000_000.5)

    private func sample() -> MutableDocument {
        MutableDocument(id: "doc")
            .setString("text", forKey: "string")
            .setInt(42, forKey: "int")
            .setInt64(Int64.max, forKey: "int64")
            .setDouble(3.25, forKey: "double")
            .setFloat(1.5, forKey: "float")
            .setBoolean(true, forKey: "true")
            .setBoolean(false, forKey: "false")
            .setDate(Self.date, forKey: "date")
            .setValue(nil, forKey: "null")
            .setValue(["a": 1, "b": ["c": "d"]], forKey: "dict")
            .setValue([1, "two", 3.5], forKey: "array")
    }

    @Test(arguments: StorageEngineKind.allCases)
    func everyTypedGetterReadsBackWhatWasSaved(engine: StorageEngineKind) throws {
        try withDatabase(engine) { database, _ in
            try database.saveDocument(sample())
            let doc = try #require(database.document(withID: "doc"))
            #expect(doc.string(forKey: "string") == "text")
            #expect(doc.int(forKey: "int") == 42)
            #expect(doc.int64(forKey: "int64") == Int64.max)
            #expect(doc.double(forKey: "double") == 3.25)
            #expect(doc.float(forKey: "float") == 1.5)
            #expect(doc.boolean(forKey: "true"))
            #expect(!doc.boolean(forKey: "false"))
            #expect(doc.date(forKey: "date") == Self.date)
            #expect(doc.value(forKey: "null") is NSNull)
            #expect(doc.contains(key: "null"))
            #expect(doc.dictionary(forKey: "dict")?.int(forKey: "a") == 1)
            #expect(doc.dictionary(forKey: "dict")?.dictionary(forKey: "b")?.string(forKey: "c") == "d")
            #expect(doc.array(forKey: "array")?.count == 3)
            #expect(doc.array(forKey: "array")?.string(at: 1) == "two")
            #expect(doc.array(forKey: "array")?.double(at: 2) == 3.5)
            #expect(doc.number(forKey: "int")?.intValue == 42)
            #expect(doc.count == 11)
            #expect(Set(doc.keys) == ["string", "int", "int64", "double", "float", "true", "false", "date",
                                      "null", "dict", "array"])
        }
    }

    @Test(arguments: StorageEngineKind.allCases)
    func typeMismatchGivesNilOrZero(engine: StorageEngineKind) throws {
        try withDatabase(engine) { database, _ in
            try database.saveDocument(sample())
            let doc = try #require(database.document(withID: "doc"))
            #expect(doc.string(forKey: "int") == nil)
            #expect(doc.int(forKey: "string") == 0)
            #expect(doc.double(forKey: "dict") == 0)
            #expect(doc.number(forKey: "string") == nil)
            #expect(doc.date(forKey: "int") == nil)
            #expect(doc.array(forKey: "dict") == nil)
            #expect(doc.dictionary(forKey: "array") == nil)
            #expect(doc.blob(forKey: "string") == nil)
            #expect(doc.int(forKey: "missing") == 0)
            #expect(doc.string(forKey: "missing") == nil)
            #expect(!doc.boolean(forKey: "missing"))
            #expect(doc.boolean(forKey: "string"), "any non-null, non-false, non-zero value is true")
            #expect(doc.int(forKey: "true") == 1)
            #expect(doc.int(forKey: "double") == 3)
            #expect(!doc.contains(key: "missing"))
        }
    }

    @Test(arguments: StorageEngineKind.allCases)
    func nestedContainersAreEditedInPlace(engine: StorageEngineKind) throws {
        try withDatabase(engine) { database, _ in
            try database.saveDocument(sample())
            let doc = try #require(database.document(withID: "doc")?.toMutable())
            doc.dictionary(forKey: "dict")?.dictionary(forKey: "b")?.setString("changed", forKey: "c")
            doc.array(forKey: "array")?.addString("four").removeValue(at: 0)
            doc["dict"]["new"].value = true
            try database.saveDocument(doc)
            let read = try #require(database.document(withID: "doc"))
            #expect(read["dict"]["b"]["c"].string == "changed")
            #expect(read["dict"]["new"].boolean)
            #expect(read.array(forKey: "array")?.toArray().count == 3)
            #expect(read.array(forKey: "array")?.string(at: 2) == "four")
            #expect(read["array"][0].string == "two")
        }
    }

    @Test func fragmentsOfMissingPathsDoNotExist() {
        let doc = MutableDocument(id: "x").setValue(["a": ["b": 1]], forKey: "top")
        #expect(doc["top"]["a"]["b"].int == 1)
        #expect(!doc["top"]["nope"]["deeper"].exists)
        #expect(doc["top"][3].value == nil)
    }

    @Test(arguments: StorageEngineKind.allCases)
    func removedPropertiesStayRemoved(engine: StorageEngineKind) throws {
        try withDatabase(engine) { database, _ in
            try database.saveDocument(sample())
            let doc = try #require(database.document(withID: "doc")?.toMutable())
            doc.removeValue(forKey: "string").removeValue(forKey: "dict")
            try database.saveDocument(doc)
            let read = try #require(database.document(withID: "doc"))
            #expect(!read.contains(key: "string"))
            #expect(read.dictionary(forKey: "dict") == nil)
            #expect(read.count == 9)
        }
    }

    @Test func toDictionaryAndToJSONGivePlainValues() throws {
        let doc = MutableDocument(id: "x", data: ["name": "Ann", "tags": ["a", "b"], "address": ["city": "Paris"]])
        let dictionary = doc.toDictionary()
        #expect(dictionary["name"] as? String == "Ann")
        #expect((dictionary["tags"] as? [Any])?.count == 2)
        #expect((dictionary["address"] as? [String: Any])?["city"] as? String == "Paris")
        #expect(doc.toJSON() == #"{"address":{"city":"Paris"},"name":"Ann","tags":["a","b"]}"#)
    }

    @Test(arguments: StorageEngineKind.allCases)
    func unsupportedValueTypesFailTheSave(engine: StorageEngineKind) throws {
        struct Custom {}
        try withDatabase(engine) { database, _ in
            let doc = MutableDocument(id: "bad").setValue(Custom(), forKey: "custom")
            #expect { try database.saveDocument(doc) } throws: {
                ($0 as? CouchbaseLiteError)?.code == .invalidParameter
            }
            #expect(database.document(withID: "bad") == nil)
        }
    }

    @Test(arguments: StorageEngineKind.allCases)
    func documentsAreEqualByContent(engine: StorageEngineKind) throws {
        try withDatabase(engine) { database, _ in
            try database.saveDocument(sample())
            let one = try #require(database.document(withID: "doc"))
            let two = try #require(database.document(withID: "doc"))
            #expect(one == two)
            let changed = one.toMutable().setInt(7, forKey: "int")
            #expect(changed != one)
        }
    }

    @Test(arguments: StorageEngineKind.allCases)
    func documentsMadeFromJSONSaveAndRead(engine: StorageEngineKind) throws {
        try withDatabase(engine) { database, _ in
            let unread = try MutableDocument(id: "a", json: #"{"name":"Ritz","geo":{"lat":48.8},"tags":["x"]}"#)
            try database.saveDocument(unread)
            #expect(database.document(withID: "a")?.toJSON() == #"{"name":"Ritz","geo":{"lat":48.8},"tags":["x"]}"#)
            #expect(unread.string(forKey: "name") == "Ritz", "the saved document reads its new body")

            let read = try MutableDocument(id: "b", json: #"{"n":1}"#)
            #expect(read.int(forKey: "n") == 1)
            read.setInt(2, forKey: "n")
            try database.saveDocument(read)
            #expect(database.document(withID: "b")?.int(forKey: "n") == 2)
        }
    }

    @Test(arguments: ["{", #"{"a":}"#, "[1,2]", "42", #"{"a":1} x"#])
    func invalidOrNonObjectJSONIsRejected(json: String) {
        #expect { try MutableDocument(id: "x", json: json) } throws: {
            ($0 as? CouchbaseLiteError)?.code == .invalidParameter
        }
    }
}
