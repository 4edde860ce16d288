@testable import Upgrader
import Testing
import TestSupport

/// Reading one member of a validated body, as the reader does for `_attachments`.
@Suite(.ownThreads) struct JSONValueTests {
    private func member(_ key: String, of json: String) -> JSONValue? {
        let bytes = Array(json.utf8)
        guard case .success(let range?) = JSONValidator.validateObject(bytes, locatingMember: key) else { return nil }
        return JSONValue.parse(bytes, range: range)
    }

    @Test func aTopLevelMemberIsFoundAndParsed() {
        let value = member("_attachments", of: #"{"x":{"_attachments":1},"_attachments":{"a":{"length":7,"ok":true,"n":null,"l":[1,"2"]}}}"#)
        #expect(value?["a"]?["length"]?.integer == 7)
        #expect(value?["a"]?["ok"] == .bool(true))
        #expect(value?["a"]?["n"] == .null)
        #expect(value?["a"]?["l"] == .array([.number("1"), .string("2")]))
    }

    @Test func aNestedKeyOfTheSameNameIsNotTheMember() {
        #expect(member("_attachments", of: #"{"x":{"_attachments":{"a":{}}}}"#) == nil)
    }

    @Test func aKeySpelledWithEscapesIsStillTheMember() {
        #expect(member("_attachments", of: #"{"\u005fattachments":{"a":{}}}"#) == .object(["a": .object([:])]))
    }

    @Test func stringEscapesAndSurrogatePairsDecode() {
        let value = member("s", of: #"{"s":"a\"b\\c\/d\n\t\u00e9\ud83d\ude00\ud800x"}"#)
        #expect(value?.string == "a\"b\\c/d\n\té😀\u{FFFD}x")
    }

    @Test func integersReadExactlyAndIntegralFloatsConvert() {
        #expect(member("n", of: #"{"n":9007199254740993}"#)?.integer == 9_007_199_254_740_993)
        #expect(member("n", of: #"{"n":7.0}"#)?.integer == 7)
        #expect(member("n", of: #"{"n":7.5}"#)?.integer == nil)
        #expect(member("n", of: #"{"n":-1e2}"#)?.integer == -100)
    }
}
