import Foundation
import Testing
import TestSupport
@testable import Fleece

/// JSON deltas: the JsonDiffPatch suite of `DeltaTests.json5` (compatible form, as Fleece's
/// own test runs it, arrays suite skipped as there) and Fleece-format cases.
@Suite(.ownThreads) struct DeltaTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let suite: String
        let number: Int
        let name: String?
        let left: String?
        let right: String?
        let delta: String?
        let reverse: String?
        var testDescription: String { "\(suite) #\(number)" + (name.map { " \($0)" } ?? "") }
    }

    static func cases() throws -> [Case] {
        let document = try FleeceDocument(json: fixtureText("fleece/DeltaTests.json5"), json5: true)
        var result: [Case] = []
        for (suite, tests) in try #require(document.root.dictionary) where suite != "arrays" {
            guard let tests = tests.array else { continue }
            for (index, test) in tests.enumerated() {
                guard let test = test.dictionary else { continue }
                result.append(Case(suite: suite, number: index + 1, name: test["name"]?.string,
                                   left: test["left"]?.json(), right: test["right"]?.json(),
                                   delta: test["delta"]?.json(), reverse: test["reverse"]?.json()))
            }
        }
        return result
    }

    static func value(_ json: String?) throws -> FleeceValue? {
        guard let json else { return nil }
        return try FleeceDocument(json: "[\(json)]").root.array?[0]
    }

    static func check(from left: String?, to right: String?, expected: String?, compatible: Bool) throws {
        let old = try value(left), new = try value(right)
        let delta = JSONDelta.create(from: old, to: new, compatible: compatible)
        if let expected {
            let delta = try #require(delta, "no delta, expected \(expected)")
            let got = try value(delta)
            #expect(got?.isEqual(to: try #require(try value(expected))) == true, "delta \(delta), expected \(expected)")
            let rebuilt = try FleeceDocument(bytes: JSONDelta.apply(delta, to: old)).root
            if let new {
                #expect(rebuilt.isEqual(to: new), "applying \(delta) gave \(rebuilt.json())")
            } else {
                #expect(rebuilt.isUndefined)
            }
        } else {
            #expect(delta == nil, "expected no delta, got \(delta ?? "")")
        }
    }

    @Test func suiteHasItsVectors() throws {
        let cases = try Self.cases()
        #expect(cases.filter { $0.suite == "atomicValues" }.count > 30)
        #expect(cases.filter { $0.suite == "objects" }.count >= 5)
    }

    @Test(arguments: try cases())
    func createsAndAppliesTheDelta(_ test: Case) throws {
        try Self.check(from: test.left, to: test.right, expected: test.delta, compatible: true)
    }

    @Test(arguments: try cases())
    func createsAndAppliesTheReverse(_ test: Case) throws {
        try Self.check(from: test.right, to: test.left, expected: test.reverse, compatible: true)
    }

    @Test(arguments: [
        ("5", "5", nil), ("5", "6", "[6]"), ("false", "[]", "[[]]"), ("\"hi\"", "\"Hi\"", "[\"Hi\"]"),
        ("{}", "{\"bar\":2}", "{\"bar\":2}"), ("{\"foo\":1}", "{}", "{\"foo\":[]}"),
        ("{\"foo\":1}", "{\"bar\":2}", "{\"bar\":2,\"foo\":[]}"),
        ("{\"foo\":1,\"bar\":2,\"baz\":3}", "{\"baz\":3,\"foo\":1,\"bar\":2}", nil),
        ("{\"top\":{\"foo\":1}}", "{\"top\":[2]}", "{\"top\":[[2]]}"),
        ("{}", "{\"bar\":{\"baz\":9}}", "{\"bar\":[{\"baz\":9}]}"),
        ("{\"foo\":{\"bar\":[1]},\"goo\":2}", "{\"foo\":{\"bar\":[2]},\"goo\":2}", "{\"foo\":{\"bar\":{\"0\":2}}}"),
        ("[1,2,3,5,6,7]", "[1,2,3,4,5]", "{\"3\":4,\"4\":5,\"5-\":[]}"),
        ("[1,2,3]", "[1,2,3,4,5]", "{\"3-\":[4,5]}"), ("[1,2,3]", "[]", "[[]]"),
        ("[1,[21,22],3]", "[1,[21,22,23],3]", "{\"1\":{\"2-\":[23]}}"),
    ] as [(String, String, String?)])
    func fleeceFormatDelta(left: String, right: String, expected: String?) throws {
        try Self.check(from: left, to: right, expected: expected, compatible: false)
    }

    @Test func longStringChangeBecomesAStringPatch() throws {
        let old = "to wound the autumnal city. The in-dark answered with the wind."
        let new = "to wound the autumnal city. So howled out for the world to give him a name. The in-dark answered with the wind."
        let delta = JSONDelta.create(from: try Self.value("\"\(old)\""), to: try Self.value("\"\(new)\""))
        #expect(delta == #"["28=48+So howled out for the world to give him a name. |35=",0,2]"#)
        try Self.check(from: "\"\(old)\"", to: "\"\(new)\"", expected: delta, compatible: false)
    }

    @Test func liteCoreStringPatchApplies() throws {
        let old = try #require(try Self.value("\"to wound the autumnal city. The in-dark answered with the wind.\""))
        let bytes = try JSONDelta.apply(#"["27=48+ So howled out for the world to give him a name.|36=",0,2]"#, to: old)
        #expect(try FleeceDocument(bytes: bytes).root.string
            == "to wound the autumnal city. So howled out for the world to give him a name. The in-dark answered with the wind.")
    }

    @Test(arguments: [#"["5=",0,2]"#, #"["3+ab|",0,2]"#, #"["x",0,2]"#, #"[1,2,3,4]"#, #"[1,0,9]"#])
    func badDeltaIsAnError(delta: String) throws {
        let old = try #require(try Self.value("\"abc\""))
        #expect(throws: FleeceError.self) { try JSONDelta.apply(delta, to: old) }
    }
}
