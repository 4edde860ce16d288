import Testing
import TestSupport
@testable import Fleece

/// Bodies written by real Couchbase Lite 2.x, taken from the current revision in `kv_default`
/// of `fixtures/v2` databases, with their `SharedKeys` records from `kv_info`.
@Suite(.ownThreads) struct RealBodyTests {
    // fixtures/v2/upgrade_2.7.cblite2: SharedKeys, and doc-002's body.
    static let upgradeKeys = "446576656e006002416e80058003"
    static let upgradeBody = "700200000002000138008005"
    // fixtures/v2/android200-sqlite/android-sqlite.cblite2: SharedKeys, and doc1's body.
    static let androidKeys = "436b65794761747461636831466c656e677468004c636f6e74656e742d7479706500466469676573740047617474616368326006801a801980168013800d800a8007"
    static let androidBody = "4a746578742f706c61696e0045407479706544626c6f62004f21736861312d503169356b492f736f73713734352f39424452376b4567684b70733d007004000200070003802200048018801f801d7002000041310001800d8005"

    @Test func liteCore27BodyDecodesWithItsSharedKeys() throws {
        let keys = try SharedKeys(persisted: bytes(fromHex: Self.upgradeKeys))
        #expect(keys.keys == ["n", "even"])
        let document = try FleeceDocument(bytes: bytes(fromHex: Self.upgradeBody), sharedKeys: keys)
        #expect(document.root.json() == #"{"n":2,"even":true}"#)
        #expect(document.root.dictionary?["even"]?.bool == true)
    }

    @Test func liteCore27BodyReencodesToTheSameBytes() throws {
        let keys = try SharedKeys(persisted: bytes(fromHex: Self.upgradeKeys))
        #expect(try JSONConverter.fleece(fromJSON: #"{"n":2,"even":true}"#, sharedKeys: keys) == bytes(fromHex: Self.upgradeBody))
    }

    @Test func android20BlobBodyDecodes() throws {
        let keys = try SharedKeys(persisted: bytes(fromHex: Self.androidKeys))
        let document = try FleeceDocument(bytes: bytes(fromHex: Self.androidBody), sharedKeys: keys)
        #expect(document.root.json()
            == #"{"key":"1","attach1":{"length":7,"content-type":"text/plain","digest":"sha1-P1i5kI/sosq745/9BDR7kEghKps=","@type":"blob"}}"#)
        #expect(try FleecePath("attach1.digest").evaluate(on: document.root)?.string == "sha1-P1i5kI/sosq745/9BDR7kEghKps=")
    }
}
