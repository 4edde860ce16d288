@testable import Upgrader
import Testing
import TestSupport

/// Body validation follows RFC 8259 exactly, where Foundation's parsers are lenient.
@Suite(.ownThreads) struct JSONValidatorTests {
    static let valid: [String] = [
        "{}", " {\n}\t", #"{"a":1}"#, #"{"a":-0.5e+10,"b":0,"c":1E-2,"d":12345678901234567890123}"#,
        #"{"s":"\"\\\/\b\f\n\r\t\u00e9\uD83D\uDE00"}"#, #"{"u":"é€😀"}"#, #"{"a":[true,false,null,[],{}]}"#,
        #"{"a":1e400}"#, #"{"lone":"\ud800"}"#, #"{"dup":1,"dup":2}"#,
    ]

    static let invalid: [String] = [
        "", "   ", "[]", "42", #""text""#, "{", "}", #"{"a"}"#, #"{"a":}"#, #"{"a":1,}"#, #"{"a":[1,]}"#,
        #"{a:1}"#, #"{"a":01}"#, #"{"a":1.}"#, #"{"a":.5}"#, #"{"a":-}"#, #"{"a":1e}"#, #"{"a":+1}"#,
        #"{"a":tru}"#, #"{"a":nul}"#, #"{"a":"\q"}"#, #"{"a":"\u00"}"#, "{\"a\":\"x\ny\"}", #"{"a":1} x"#,
        #"{"a":1}{}"#, #"{'a':1}"#, #"{"a":NaN}"#, #"{"a":"unterminated}"#,
    ]

    @Test(arguments: valid)
    func validObjectsPass(json: String) {
        #expect(JSONValidator.validateObject(Array(json.utf8)) == nil)
    }

    @Test(arguments: invalid)
    func invalidTextIsRejected(json: String) {
        #expect(JSONValidator.validateObject(Array(json.utf8)) != nil)
    }

    @Test(arguments: [[0x80], [0xC0, 0xAF], [0xE0, 0x80, 0xAF], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80],
                      [0xF8, 0x88, 0x80, 0x80, 0x80], [0xE2, 0x82], [0xFF]] as [[UInt8]])
    func invalidUTF8InAStringIsRejected(sequence: [UInt8]) {
        let json = Array(#"{"a":""#.utf8) + sequence + Array(#""}"#.utf8)
        #expect(JSONValidator.validateObject(json) != nil)
    }

    @Test func theFailureSaysWhereAndWhat() {
        let failure = JSONValidator.validateObject(Array(#"{"a":[1,]}"#.utf8))
        #expect(failure?.offset == 8)
        #expect(failure?.description.contains("byte 8") == true)
    }

    @Test func nestingBeyondTheLimitIsRejectedWithoutCrashing() {
        let deep = String(repeating: #"{"a":"#, count: 10_000) + "1" + String(repeating: "}", count: 10_000)
        #expect(JSONValidator.validateObject(Array(deep.utf8)) != nil)
        let fine = String(repeating: #"{"a":"#, count: 100) + "1" + String(repeating: "}", count: 100)
        #expect(JSONValidator.validateObject(Array(fine.utf8)) == nil)
    }
}
