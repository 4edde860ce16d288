import Foundation
import TestSupport
@testable import BLIP

/// Helpers shared by the BLIP tests.
enum TestBytes {
    /// Decodes Go string escapes as blip-vectors.json writes them (`\x25` = byte 0x25).
    static func goEscaped(_ text: String) -> [UInt8] {
        let utf8 = Array(text.utf8)
        var bytes: [UInt8] = []
        var index = 0
        while index < utf8.count {
            if utf8[index] == UInt8(ascii: "\\"), index + 3 < utf8.count, utf8[index + 1] == UInt8(ascii: "x"),
               let value = UInt8(String(decoding: utf8[index + 2...index + 3], as: UTF8.self), radix: 16) {
                bytes.append(value)
                index += 4
            } else {
                bytes.append(utf8[index])
                index += 1
            }
        }
        return bytes
    }

    /// `count` random bytes; `compressible` draws from a small alphabet so deflate has work.
    static func random(_ count: Int, compressible: Bool, using generator: inout SplitMix64) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        var index = 0
        while index < count {
            let word = generator.next()
            for shift in stride(from: 0, to: 64, by: 8) where index < count {
                let byte = UInt8(truncatingIfNeeded: word >> UInt64(shift))
                bytes[index] = compressible ? UInt8(ascii: "a") + byte % 6 : byte
                index += 1
            }
        }
        return bytes
    }

    /// A random string without NUL (some non-ASCII characters).
    static func randomString(maxLength: Int, using generator: inout SplitMix64) -> String {
        let alphabet = Array("abcdefghijklmnopqrstuvwxyz0123456789-_=:/ éü漢字🙂")
        let length = Int(generator.next() % UInt64(maxLength + 1))
        return String((0..<length).map { _ in alphabet[Int(generator.next() % UInt64(alphabet.count))] })
    }

    /// A random message for round trips.
    static func randomMessage(number: UInt64, kind: BLIPMessage.Kind, using generator: inout SplitMix64) -> BLIPMessage {
        var properties = BLIPProperties()
        for _ in 0..<Int(generator.next() % 6) {
            properties[randomString(maxLength: 12, using: &generator)] = randomString(maxLength: 40, using: &generator)
        }
        let sizes = [0, 1, 100, 4_000, 20_000, 70_000, 200_000]
        let size = Int(generator.next() % UInt64(sizes[Int(generator.next() % UInt64(sizes.count))] + 1))
        return BLIPMessage(kind: kind, number: number, urgent: generator.next() % 2 == 0,
                           compressed: generator.next() % 2 == 0, noReply: false, properties: properties,
                           body: random(size, compressible: generator.next() % 2 == 0, using: &generator))
    }
}
