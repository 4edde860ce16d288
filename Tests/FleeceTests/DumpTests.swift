import Testing
import TestSupport
@testable import Fleece

/// The annotated layout listing used by `fleece dump`.
@Suite(.ownThreads) struct DumpTests {
    @Test func dumpListsEveryValueAndSlotInOffsetOrder() throws {
        let listing = try FleeceDump.dump(try JSONConverter.fleece(fromJSON: #"{"foo":123}"#))
        let lines = listing.split(separator: "\n").map(String.init)
        #expect(lines.count == 5)
        #expect(lines[0].hasPrefix("0000: 43 66 6f 6f") && lines[0].hasSuffix(#"string "foo""#))
        #expect(lines[1].hasSuffix("dict (1)"))
        #expect(lines[2].contains(#"key &string "foo" (@0000)"#))
        #expect(lines[3].hasSuffix("int 123"))
        #expect(lines[4].hasSuffix("root -> @0004"))
    }

    @Test func dumpNamesSharedKeys() throws {
        let keys = SharedKeys()
        let listing = try FleeceDump.dump(try JSONConverter.fleece(fromJSON: #"{"type":"x"}"#, sharedKeys: keys), sharedKeys: keys)
        #expect(listing.contains(#"key int 0 ("type")"#))
    }

    @Test func dumpOfInvalidDataIsAnError() {
        #expect(throws: FleeceError.self) { try FleeceDump.dump([0x80, 0x09]) }
    }
}
