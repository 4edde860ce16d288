import Foundation
import TestSupport
@testable import Fleece

/// Uppercase hex in 2-byte groups, the format of `encoder-vectors.json`.
func hexGroups(_ bytes: [UInt8]) -> String {
    var groups: [String] = []
    var index = 0
    while index < bytes.count {
        let end = min(index + 2, bytes.count)
        groups.append(bytes[index..<end].map { String(format: "%02X", $0) }.joined())
        index = end
    }
    return groups.joined(separator: " ")
}

/// The bytes of a hex string, ignoring spaces and case.
func bytes(fromHex hex: String) -> [UInt8] {
    let digits = Array(hex.replacingOccurrences(of: " ", with: "").utf8)
    return stride(from: 0, to: digits.count, by: 2).map { UInt8(String(decoding: digits[$0..<$0 + 2], as: UTF8.self), radix: 16) ?? 0 }
}

/// Encodes a value built by `body`.
func encode(sharedKeys: SharedKeys? = nil, _ body: (FleeceEncoder) -> Void) throws -> [UInt8] {
    let encoder = FleeceEncoder(sharedKeys: sharedKeys)
    body(encoder)
    return try encoder.finish()
}

/// A fixture's text.
func fixtureText(_ path: String) throws -> String {
    String(decoding: try Fixtures.data(path), as: UTF8.self)
}
