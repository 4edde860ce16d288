import Foundation
import PropertyBased
import Testing
import TestSupport
@testable import Fleece

/// The parser scans strings eight bytes at a time until a quote, backslash or control byte; for
/// generated strings that put those (and multi-byte UTF-8) at every offset, it must decode what
/// Foundation's JSON parser decodes, and reject what it rejects.
@Suite(.ownThreads) struct JSONStringScanPropertyTests {
    private static let pieces = ["a", "bcdefgh", "é", "東京", "\\\"", "\\\\", "\\n", "\\u00e9", "\\ud83d\\ude00", "\u{01}",
                                 "\u{1F}", "\u{7F}", " ", "/", "\\/", "'", "12345678", "\t"]

    @Test func decodesAsFoundationDoes() async {
        let strings = Gen.int(in: 0...(Self.pieces.count - 1)).array(of: 0...40)
        await propertyCheck(count: 500, input: strings) { picks in
            let literal = "\"" + picks.map { Self.pieces[$0] }.joined() + "\""
            let expected = (try? JSONSerialization.jsonObject(with: Data("[\(literal)]".utf8)) as? [String])?.first
            let actual = (try? JSONConverter.fleece(fromJSON: literal)).flatMap { try? FleeceDocument(bytes: $0).root.string }
            #expect(actual == expected, "\(literal.debugDescription)")
        }
    }

    /// Byte pieces, some of them not UTF-8 on their own (a lone lead or continuation byte, an
    /// overlong form, a surrogate): a string whose bytes are not UTF-8 must be refused, by the
    /// direct parser and by the tape, wherever the eight-byte scan puts its word boundaries.
    private static let bytePieces: [[UInt8]] = [[0x61], Array("bcdefghijklmnop".utf8), [0xC3, 0xA9], [0xE6, 0x9D, 0xB1],
                                                [0x5C, 0x22], [0x5C, 0x6E], [0x20], Array("12345678".utf8),
                                                [0xFF], [0xC3], [0x80], [0xC0, 0xAF], [0xED, 0xA0, 0x80], [0xF0, 0x9F, 0x98, 0x80]]

    @Test func refusesInvalidUTF8AtEveryOffset() async {
        let strings = Gen.int(in: 0...(Self.bytePieces.count - 1)).array(of: 0...48)
        await propertyCheck(count: 500, input: strings) { picks in
            let content = picks.flatMap { Self.bytePieces[$0] }
            let bytes: [UInt8] = [0x22] + content + [0x22]
            // Judged on the whole: a lone lead byte followed by a lone continuation byte is valid.
            let valid = String(validating: content, as: UTF8.self) != nil
            bytes.withUnsafeBytes { json in
                let direct = (try? JSONConverter.fleece(fromJSONBytes: json)) != nil
                let taped = (try? JSONTape.parse(json: json)) != nil
                #expect(direct == valid, "\(bytes)")
                #expect(taped == valid, "\(bytes)")
            }
        }
    }

    /// The writer's escaping, byte by byte, as LiteCore writes strings: `\r \n \t \" \\`,
    /// other control bytes and DEL as `\u00xx`, everything else as is.
    private static func referenceQuoted(_ text: String) -> String {
        var out: [UInt8] = [0x22]
        for byte in text.utf8 {
            switch byte {
            case 0x22: out += Array(#"\""#.utf8)
            case 0x5C: out += Array(#"\\"#.utf8)
            case 0x0D: out += Array(#"\r"#.utf8)
            case 0x0A: out += Array(#"\n"#.utf8)
            case 0x09: out += Array(#"\t"#.utf8)
            case 0..<0x20, 0x7F: out += Array(String(format: #"\u%04x"#, byte).utf8)
            default: out.append(byte)
            }
        }
        out.append(0x22)
        return String(decoding: out, as: UTF8.self)
    }

    private static let rawPieces = ["a", "bcdefgh", "é", "東京", "\"", "\\", "\n", "\r", "\t", "\u{01}", "\u{1F}", "\u{7F}",
                                    " ", "/", "12345678", "😀"]

    @Test func writerEscapesAsTheByteRule() async {
        let strings = Gen.int(in: 0...(Self.rawPieces.count - 1)).array(of: 0...40)
        await propertyCheck(count: 500, input: strings) { picks in
            let text = picks.map { Self.rawPieces[$0] }.joined()
            let encoder = FleeceEncoder()
            encoder.writeString(text)
            let document = try FleeceDocument(bytes: try encoder.finish())
            #expect(document.root.json() == Self.referenceQuoted(text), "\(text.debugDescription)")
        }
    }
}
