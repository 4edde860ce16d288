import Dispatch
import LiteSupport

extension FullTextPendingPostings {
    /// Adds a rebuild batch's documents, in order. With `helper` (a tokenizer of its own, for a
    /// second thread), the documents from the batch's ``FullTextRebuildBatch/middle`` on are
    /// analysed on another thread into postings of their own while this thread analyses the
    /// first half, then appended after them: the same documents, records and record order as
    /// adding every one here, so the same store is written (decisions FTS-19).
    mutating func add(_ batch: FullTextRebuildBatch, tokenizer: TextTokenizer, helper: TextTokenizer?) throws {
        let middle = batch.middle
        guard let helper, middle > 0, middle < batch.count else {
            return try add(batch, documents: 0..<batch.count, tokenizer: tokenizer)
        }
        let second = Locked<Result<FullTextPendingPostings, any Error>?>(nil)
        let finished = DispatchSemaphore(value: 0)
        DispatchQueue.global(qos: .userInitiated).async {
            var postings = FullTextPendingPostings(token: [], documentsMayRepeat: false)
            let result = Result { () throws -> FullTextPendingPostings in
                try postings.add(batch, documents: middle..<batch.count, tokenizer: helper)
                return postings
            }
            second.withLock { $0 = result }
            finished.signal()
        }
        // The helper is waited for even when this half fails.
        let first = Result { try add(batch, documents: 0..<middle, tokenizer: tokenizer) }
        finished.wait()
        try first.get()
        if let result = second.withLock({ $0 }) { append(try result.get()) }
    }

    /// Adds documents `documents` of `batch`, in order.
    private mutating func add(_ batch: FullTextRebuildBatch, documents: Range<Int>, tokenizer: TextTokenizer) throws {
        for index in documents {
            try batch.withDocument(index) { id, texts in
                let ordinal = ordinal(of: Array(id))
                if let counts = try add(document: ordinal, texts: texts, tokenizer: tokenizer) {
                    documentsDelta += 1
                    wordsDelta += counts.reduce(0, +)
                }
            }
        }
    }
}
