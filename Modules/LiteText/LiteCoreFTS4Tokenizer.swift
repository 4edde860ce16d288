import LiteStorage

/// The terms Couchbase Lite's `unicodesn` tokenizer gives, made by ``TextTokenizer``, for the
/// FTS4 tables of files Couchbase Lite wrote (the SQLite engine calls it from their triggers).
///
/// Like `unicodesn`, positions count only the words kept (a stop word takes no position), so a
/// phrase query Couchbase Lite runs on the table finds the rows written here.
struct LiteCoreFTS4Tokenizer: ForeignTextTokenizer {
    let tokenizer: TextTokenizer

    func forEachToken(in text: String, _ body: (String, Int, Range<Int>) throws -> Void) rethrows {
        var position = 0
        try tokenizer.forEachToken(in: text) { term, _, byteRange in
            try body(term, position, byteRange)
            position += 1
        }
    }

    /// Makes the storage layer's FTS4 tokenizer this one (idempotent; called before a database
    /// opens for writing).
    static func install() {
        ForeignTextTokenizers.install { arguments in
            LiteCoreFTS4Tokenizer(tokenizer: try LiteCoreTokenizerOptions(arguments: arguments).makeTokenizer())
        }
    }
}
