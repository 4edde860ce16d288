import LiteSupport

/// Splits text into terms for the full-text tables of files another program wrote: LiteCore's
/// FTS4 tables name the tokenizer `unicodesn`, and SQLite calls it from the triggers that keep
/// them up to date on every write. An engine with such tables asks ``ForeignTextTokenizers``
/// for one; the module that does text analysis installs the factory, so the engine knows
/// nothing about words, stemming or languages.
package protocol ForeignTextTokenizer: Sendable {
    /// Calls `body` with each term of `text` (normalised as the index stores it), its word
    /// position and its UTF-8 byte range in `text`, in order.
    func forEachToken(in text: String, _ body: (String, Int, Range<Int>) throws -> Void) rethrows
}

/// The process-wide factory of ``ForeignTextTokenizer``s.
///
/// Process-wide because SQLite's tokenizer interface hands its `xCreate` only the table's
/// tokenizer arguments, with no context pointer to find a per-file factory by.
package enum ForeignTextTokenizers {
    /// Makes a tokenizer from a table's tokenizer arguments (`stemmer=en`, `stopwords=en`,
    /// `remove_diacritics=0`, …).
    package typealias Factory = @Sendable (_ arguments: [String]) throws -> any ForeignTextTokenizer

    private static let factory = Locked<Factory?>(nil)

    /// Installs the factory (the text-analysis module does, before a database opens for writing).
    package static func install(_ make: @escaping Factory) {
        factory.withLock { $0 = make }
    }

    /// A tokenizer for `arguments`.
    ///
    /// - Throws: `StorageError` when no factory is installed or the arguments are not understood.
    package static func make(arguments: [String]) throws -> any ForeignTextTokenizer {
        guard let make = factory.withLock({ $0 }) else {
            throw StorageError(.unsupported, "writing to a Couchbase Lite full-text (FTS4) table needs its "
                               + "tokenizer, and no text-analysis module is loaded")
        }
        return try make(arguments)
    }
}
