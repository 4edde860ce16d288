import Foundation
import Testing
import TestSupport
@testable import Fleece

/// Reading the real Fleece fixtures made by couchbase/fleece.
@Suite(.ownThreads) struct ReaderFixtureTests {
    static func person() throws -> FleeceDocument {
        try FleeceDocument(bytes: Array(Fixtures.data("fleece/1person.fleece")))
    }

    static func sameJSON(_ a: String, _ b: String) throws -> Bool {
        let x = try JSONSerialization.jsonObject(with: Data(a.utf8), options: [.fragmentsAllowed]) as? NSObject
        let y = try JSONSerialization.jsonObject(with: Data(b.utf8), options: [.fragmentsAllowed]) as? NSObject
        return x != nil && x == y
    }

    @Test func onePersonDecodesToItsJSON() throws {
        let json = try Self.person().root.json()
        #expect(try Self.sameJSON(json, fixtureText("fleece/1person.json")))
        #expect(json.hasPrefix(#"{"_id":"56516c81b864942e1acca6d9","about":"Elit ut"#))
    }

    @Test func shallowIterationMatchesTheListing() throws {
        let root = try #require(try Self.person().root.dictionary)
        var listing = ""
        for (key, value) in root { listing += "/\(key): \(value.text)\n" }
        #expect(listing == (try fixtureText("fleece/1person-shallowIterOutput.txt")))
    }

    @Test func deepIterationMatchesTheListing() throws {
        var listing = ""
        for (path, value) in FleeceDeepIterator(try Self.person().root) {
            listing += "\(FleeceDeepIterator.pathString(path)): \(value.text)\n"
        }
        #expect(listing == (try fixtureText("fleece/1person-deepIterOutput.txt")))
    }

    @Test func thousandPeopleMakeExactly22SharedKeys() throws {
        let keys = SharedKeys()
        _ = try JSONConverter.fleece(fromJSON: fixtureText("fleece/1000people.json"), sharedKeys: keys)
        #expect(keys.count == 22)
    }

    @Test func thousandPeopleRoundTripWithSharedKeys() throws {
        let keys = SharedKeys()
        let text = try fixtureText("fleece/1000people.json")
        let document = try FleeceDocument(bytes: JSONConverter.fleece(fromJSON: text, sharedKeys: keys), sharedKeys: keys)
        #expect(try Self.sameJSON(document.root.json(), text))
    }

    @Test func element123IsConcepcionBurns() throws {
        let keys = SharedKeys()
        let bytes = try JSONConverter.fleece(fromJSON: fixtureText("fleece/1000people.json"), sharedKeys: keys)
        let document = try FleeceDocument(bytes: bytes, sharedKeys: keys)
        #expect(document.root.array?[123]?.dictionary?["name"]?.string == "Concepcion Burns")
    }

    @Test func sharedKeysSurviveTheirPersistedForm() throws {
        let keys = SharedKeys()
        let bytes = try JSONConverter.fleece(fromJSON: fixtureText("fleece/1000people.json"), sharedKeys: keys)
        let reloaded = try SharedKeys(persisted: try keys.persistedBytes())
        #expect(reloaded.keys == keys.keys)
        let document = try FleeceDocument(bytes: bytes, sharedKeys: reloaded)
        #expect(document.root.array?[123]?.dictionary?["name"]?.string == "Concepcion Burns")
    }
}
