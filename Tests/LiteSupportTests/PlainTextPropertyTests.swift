import Foundation
import LiteSupport
import PropertyBased
import Testing

/// The string helpers that replaced Foundation's in the modules the tools link (Tools-18) must
/// give what Foundation gave, on generated text rich in what each one treats specially.
@Suite struct PlainTextPropertyTests {
    // Letters with and without accents, decomposed marks, Greek, Vietnamese, ligatures and signs
    // that decompose (Å, ǅ), and characters that do not (ø, ß).
    private static let accented = Gen<Character?>.element(of: Array("aeiouAEIOUéèêëÉçÇñÑåÅÅøØßǅǆΐάέήώỳỹệẫ\u{301}\u{308}\u{327} -.x"))
        .map { $0 ?? "a" }.string(of: 0...12)
    private static let spaced = Gen<Character?>.element(of: Array(" \t\n\r\u{A0}\u{2003}\u{3000}ab\u{85}"))
        .map { $0 ?? "a" }.string(of: 0...12)
    private static let escapable = Gen<Character?>.element(of: Array("ab/%_~-.: é?#=&+\u{1F600}"))
        .map { $0 ?? "a" }.string(of: 0...12)
    private static let paths = Gen<Character?>.element(of: Array("ab/c.")).map { $0 ?? "a" }.string(of: 0...10)
    private static let components = Gen<Character?>.element(of: Array("ab.")).map { $0 ?? "a" }.string(of: 1...4)

    @Test func removingDiacriticsIsFoundationsDecompositionWithoutNonspacingMarks() async {
        await propertyCheck(count: 500, input: Self.accented) { text in
            var expected = String.UnicodeScalarView()
            for scalar in text.decomposedStringWithCanonicalMapping.unicodeScalars
            where scalar.properties.generalCategory != .nonspacingMark {
                expected.append(scalar)
            }
            #expect(text.removingDiacritics().unicodeScalars.elementsEqual(expected))
        }
    }

    @Test func removingDiacriticsEqualsFoundationsDiacriticFolding() async {
        await propertyCheck(count: 500, input: Self.accented) { text in
            // Swift's == compares canonically, so a composed and a decomposed result are equal.
            #expect(text.removingDiacritics() == text.folding(options: .diacriticInsensitive, locale: nil))
        }
    }

    @Test func trimmingSpacesIsFoundationsTrimmingOfWhitespaces() async {
        await propertyCheck(count: 500, input: Self.spaced) { text in
            #expect(text.trimmingSpaces() == text.trimmingCharacters(in: .whitespaces))
        }
    }

    @Test func percentEscapesRoundTripAndDecodeAsFoundationDoes() async {
        await propertyCheck(count: 500, input: Self.escapable) { text in
            let encoded = text.percentEncodingPath()
            #expect(encoded.utf8.allSatisfy { $0 < 0x80 && $0 != UInt8(ascii: " ") })
            #expect(encoded.removingPercentEscapes() == text)
            #expect(encoded.removingPercentEncoding == text)
            #expect(text.removingPercentEscapes() == text.removingPercentEncoding)
        }
    }

    @Test func pathHelpersAgreeWithNSString() async {
        await propertyCheck(count: 500, input: Self.paths, Self.components) { path, component in
            // NSString collapses repeated slashes; the helpers are only used on paths without them.
            // Absolute paths, as the modules use: Foundation on Linux crashes on a relative one
            // without a slash ("a".deletingLastPathComponent).
            let path = "/" + path
            guard !path.contains("//") else { return }
            let reference = path as NSString
            #expect(path.pathLastComponent == reference.lastPathComponent)
            #expect(path.pathDeletingLastComponent == reference.deletingLastPathComponent)
            let joined = path.pathAppending(component)
            let expected = reference.appendingPathComponent(component)
            // NSString drops a trailing slash of the result; none of ours has one.
            #expect(joined == expected)
        }
    }
}
