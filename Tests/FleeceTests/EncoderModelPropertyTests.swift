import Foundation
import Testing
import TestSupport
@testable import Fleece

/// Generated JSON documents (every kind of value and key, random key orders, repeated and long
/// strings, collections that must turn wide) encode to exactly the bytes the independent model
/// of Couchbase Lite 2.8's encoder gives, with and without shared keys, and leave the same
/// shared-key table behind.
@Suite(.ownThreads) struct EncoderModelPropertyTests {
    typealias JSON = FleeceModelEncoder.JSON
    typealias Generator = FleeceModelEncoder.Generator

    @Test(arguments: [false, true])
    func generatedDocumentsEncodeAsTheModelSays(sharedKeys useSharedKeys: Bool) throws {
        var generator = Generator(random: SplitMix64(seed: useSharedKeys ? 2_028 : 2_008))
        let keys = useSharedKeys ? SharedKeys() : nil
        let model = FleeceModelEncoder(sharedKeys: useSharedKeys ? [] : nil)
        for index in 0..<2_000 {
            let document = generator.document()
            let json = FleeceModelEncoder.text(document)
            let ours = try JSONConverter.fleece(fromJSON: json, sharedKeys: keys)
            let expected = model.encode(document)
            #expect(ours == expected, "document \(index): \(json.prefix(300))")
            if ours != expected { return }
            if let keys { #expect(keys.keys == model.sharedKeys) }
        }
    }

    /// The issue's facts from Couchbase Lite 2.8, through the model too (so the model is checked
    /// against the real encoder where we have its bytes).
    @Test func theModelReproducesCouchbaseLite28Bytes() {
        let rows: [(JSON, String)] = [
            (.array([.int(-8_388_608)]), "120000806001800380 02"),
            (.object([("tags", .uint(1018)), ("user_id", .int(-8541))]),
             "4474616773 00 47757365725F6964 11A3DE00 7002 800A 03FA 8009 8006 8005"),
            (.object([(",ujwughqrgumtd,rtqok", .int(-32504))]),
             "4F142C756A7775676871726775 6D74642C7274716F6B 11088100 7001 800E 8004 8003"),
        ]
        for (value, hex) in rows {
            let expected = hex.replacingOccurrences(of: " ", with: "")
            let bytes = FleeceModelEncoder(sharedKeys: nil).encode(value)
            #expect(bytes.map { String(format: "%02X", $0) }.joined() == expected)
        }
    }

    /// The encoder itself gives the issue's rows for the JSON texts (hex from Couchbase Lite
    /// 2.8's Fleece encoder), not only through the model.
    @Test func theEncoderReproducesCouchbaseLite28Bytes() throws {
        let rows: [(String, String)] = [
            ("[-8388608]", "120000806001800380 02"),
            (#"{"tags":1018,"user_id":-8541}"#,
             "4474616773 00 47757365725F6964 11A3DE00 7002 800A 03FA 8009 8006 8005"),
            (#"{",ujwughqrgumtd,rtqok":-32504}"#,
             "4F142C756A7775676871726775 6D74642C7274716F6B 11088100 7001 800E 8004 8003"),
        ]
        for (json, hex) in rows {
            let bytes = try JSONConverter.fleece(fromJSON: json)
            #expect(bytes.map { String(format: "%02X", $0) }.joined() == hex.replacingOccurrences(of: " ", with: ""), "\(json)")
        }
    }

    /// Bytes in the layout our earlier encoder wrote (a 3-byte int inline in a wide array), which
    /// Couchbase Lite 2.8 also writes when it copies values, still read back.
    @Test func theOtherValidLayoutStillDecodes() throws {
        let wide: [UInt8] = [0x68, 0x01, 0x12, 0x00, 0x00, 0x80, 0x80, 0x03]
        #expect(try FleeceDocument(bytes: wide).root.array?[0]?.int64 == -8_388_608)
        let dict: [UInt8] = [0x44, 0x74, 0x61, 0x67, 0x73, 0x00, 0x47, 0x75, 0x73, 0x65, 0x72, 0x5F, 0x69, 0x64,
                             0x78, 0x02, 0x80, 0x00, 0x00, 0x08, 0x03, 0xFA, 0x00, 0x00, 0x80, 0x00, 0x00, 0x09,
                             0x11, 0xA3, 0xDE, 0x00, 0x80, 0x09]
        #expect(try FleeceDocument(bytes: dict).root.json() == #"{"tags":1018,"user_id":-8541}"#)
    }
}
