import CStemmer
import LiteSupport

/// A Snowball stemmer for one language (libstemmer, UTF-8): `running` → `run`.
///
/// Thread-safe: libstemmer's stemmer object keeps its work buffer inside, so calls are
/// serialised by a lock (stemming a word takes well under a microsecond).
///
/// ```swift
/// let stemmer = try Stemmer(language: .english)
/// stemmer.stem("connections")   // "connect"
/// ```
package final class Stemmer: @unchecked Sendable {
    // Unchecked: libstemmer's object is a C pointer (not Sendable), used only inside
    // `handle.withLock`, which never hands it out.
    /// The language.
    package let language: StemmingLanguage
    private let handle: Locked<OpaquePointer>

    /// Makes the stemmer for `language`.
    ///
    /// - Throws: ``TextAnalysisError`` when libstemmer has no stemmer for it.
    package init(language: StemmingLanguage) throws {
        guard let stemmer = sb_stemmer_new(language.rawValue, "UTF_8") else {
            throw TextAnalysisError("the Snowball library has no \(language.rawValue) stemmer")
        }
        self.language = language
        handle = Locked(stemmer)
    }

    deinit {
        handle.withLock { sb_stemmer_delete($0) }
    }

    /// The stem of `word` (expected in lower case, as the tokenizer gives it).
    package func stem(_ word: String) -> String {
        var word = word
        return word.withUTF8 { bytes -> String in
            guard let base = bytes.baseAddress, bytes.count <= Int(Int32.max) else { return String(decoding: bytes, as: UTF8.self) }
            return handle.withLock { stemmer in
                guard let stemmed = sb_stemmer_stem(stemmer, base, Int32(bytes.count)) else {
                    return String(decoding: bytes, as: UTF8.self)   // out of memory: keep the word
                }
                let length = Int(sb_stemmer_length(stemmer))
                return String(decoding: UnsafeBufferPointer(start: stemmed, count: length), as: UTF8.self)
            }
        }
    }

    /// Calls `body` with the stem of the lower-case UTF-8 word `word` (valid only during the
    /// call; the stemmer is held meanwhile, so `body` should be short).
    func withStem<Result>(of word: UnsafeBufferPointer<UInt8>,
                          _ body: (UnsafeBufferPointer<UInt8>) throws -> Result) rethrows -> Result {
        guard let base = word.baseAddress, word.count <= Int(Int32.max) else { return try body(word) }
        return try handle.withLock { stemmer in
            guard let stemmed = sb_stemmer_stem(stemmer, base, Int32(word.count)) else {
                return try body(word)   // out of memory: keep the word
            }
            return try body(UnsafeBufferPointer(start: stemmed, count: Int(sb_stemmer_length(stemmer))))
        }
    }

    /// Every language libstemmer offers (more than the guide's fifteen).
    package static var availableAlgorithms: [String] {
        var names: [String] = []
        guard var cursor = sb_stemmer_list() else { return names }
        while let name = cursor.pointee {
            names.append(String(cString: name))
            cursor += 1
        }
        return names
    }
}
