import Dispatch
import LiteSupport

extension FullTextPendingPostings {
    /// Which thread analyses the chunks of a batch's second half: whichever takes them first
    /// (indexing), or, for tests, all the helper, or all this thread: from the front (as when
    /// the helper has not started) or from the back (as when it started but was held up).
    enum SecondHalf {
        case raced, helper, thisThreadFromTheFront, thisThreadFromTheBack
    }

    /// How many chunks a batch's second half is cut into: the most this thread waits for is
    /// the helper's current chunk.
    private static let chunks = 4

    /// Adds a rebuild batch's documents, in order (decisions FTS-19). With `helper` (a
    /// tokenizer of its own, for a second thread), this thread analyses the documents before
    /// the batch's ``FullTextRebuildBatch/middle`` while another thread takes the second half's
    /// chunks from the front. Done with the first half, this thread goes on with the chunks
    /// from the front itself while that thread has not started (the other core is busy), and
    /// from the back once it has. A chunk this thread takes from the front is added here; the
    /// others are analysed into postings of their own (knowing the terms already met here)
    /// and appended in document order. So the documents, records and record order are those
    /// of adding every document here, and the same store is written.
    mutating func add(_ batch: FullTextRebuildBatch, tokenizer: TextTokenizer, helper: TextTokenizer?,
                      secondHalf: SecondHalf = .raced) throws {
        let middle = batch.middle
        guard let helper, middle > 0, middle < batch.count else {
            return try add(batch, documents: 0..<batch.count, tokenizer: tokenizer)
        }
        let size = (batch.count - middle + Self.chunks - 1) / Self.chunks
        let chunks = stride(from: middle, to: batch.count, by: size).map { $0..<min($0 + size, batch.count) }
        // The chunks not taken yet are those from `front` up to `back`.
        let untaken = Locked((front: 0, back: chunks.count, helperStarted: secondHalf == .thisThreadFromTheBack))
        let helperMayTake = secondHalf == .raced || secondHalf == .helper
        let helped = Locked<Result<FullTextPendingPostings, any Error>?>(nil)
        let finished = DispatchSemaphore(value: 0)
        let seed = FullTextPendingPostings(knowingTermsOf: self)
        DispatchQueue.global(qos: .userInitiated).async {
            defer { finished.signal() }
            guard helperMayTake else { return }
            untaken.withLock { $0.helperStarted = true }
            var postings = seed
            let result = Result { () throws -> FullTextPendingPostings in
                while let chunk = untaken.withLock({ untaken -> Int? in
                    guard untaken.front < untaken.back else { return nil }
                    untaken.front += 1
                    return untaken.front - 1
                }) {
                    try postings.add(batch, documents: chunks[chunk], tokenizer: helper)
                }
                return postings
            }
            helped.withLock { $0 = result }
        }
        var tail: [FullTextPendingPostings] = []   // the chunks this thread took from the back, last first
        let own = Result { () throws in
            try add(batch, documents: 0..<middle, tokenizer: tokenizer)
            if secondHalf == .helper { finished.wait() }
            while let (chunk, fromFront) = untaken.withLock({ untaken -> (Int, Bool)? in
                guard untaken.front < untaken.back else { return nil }
                if !untaken.helperStarted {
                    untaken.front += 1
                    return (untaken.front - 1, true)
                }
                untaken.back -= 1
                return (untaken.back, false)
            }) {
                if fromFront {
                    try add(batch, documents: chunks[chunk], tokenizer: tokenizer)
                } else {
                    var postings = FullTextPendingPostings(knowingTermsOf: self)
                    try postings.add(batch, documents: chunks[chunk], tokenizer: tokenizer)
                    tail.append(postings)
                }
            }
        }
        // The helper is waited for when it has started (then even when this thread failed):
        // it may be in a chunk.
        let helperStarted = untaken.withLock { $0.helperStarted }
        if helperStarted && secondHalf != .helper { finished.wait() }
        try own.get()
        if helperStarted, let result = helped.withLock({ $0 }) { append(try result.get()) }
        for postings in tail.reversed() { append(postings) }
        if !helperMayTake && !helperStarted { finished.wait() }   // so a test's helper is done when the test ends
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
