import Fleece
import Testing
import TestSupport
@testable import LiteReplicator

/// How received revision bodies are screened and encoded.
@Suite(.ownThreads) struct IncomingBodyTests {
    @Test func containsFindsANeedleAnywhereAndOnlyWhole() {
        let bytes = Array(#"{"a":1,"_id":"x","digest"}"#.utf8)
        #expect(MessageJSON.contains(bytes, "\"_id\""))
        #expect(MessageJSON.contains(bytes, "\"digest\""))
        #expect(MessageJSON.contains(bytes, "{"))
        #expect(!MessageJSON.contains(bytes, "\"_rev\""))
        #expect(!MessageJSON.contains(Array("\"_i".utf8), "\"_id\""))
        #expect(!MessageJSON.contains([], "x"))
    }

    @Test func specialTopLevelKeysAreLeftOutNestedOnesKept() throws {
        let json = Array(#"{"_id":"doc","_rev":"1-abc","name":"x","nested":{"_id":"kept"},"_deleted":false}"#.utf8)
        let keys = SharedKeys()
        let body = try ReplicationDatabase.encodeBody(json, sharedKeys: keys)
        let text = try JSONConverter.json(fromFleece: body, sharedKeys: keys, canonical: true)
        #expect(text == #"{"name":"x","nested":{"_id":"kept"}}"#)
    }

    @Test func aBodyWithoutSpecialKeysIsEncodedAsIs() throws {
        let json = Array(#"{"b":[1,2],"a":"_id"}"#.utf8)
        let keys = SharedKeys()
        let body = try ReplicationDatabase.encodeBody(json, sharedKeys: keys)
        #expect(try JSONConverter.json(fromFleece: body, sharedKeys: keys, canonical: true) == #"{"a":"_id","b":[1,2]}"#)
    }
}
