/// The iterator of an async sequence, for the closure of `AsyncStream(unfolding:)` (or
/// `AsyncThrowingStream(unfolding:)`), which must be Sendable while an iterator is not: the
/// consuming end of a stream that counts what its reader takes.
///
/// ```swift
/// let iterator = UnfoldingIterator(frames.makeAsyncIterator())
/// let counted = AsyncStream(unfolding: { await iterator.next().map { taken($0); return $0 } })
/// ```
package final class UnfoldingIterator<Base: AsyncIteratorProtocol>: @unchecked Sendable {
    // Unchecked: only the unfolding stream's closure calls `next()`, and the streams made so (a
    // BLIP connection's requests, a transport's frames) have one reader each, which awaits each
    // element before asking for the next: calls never overlap.
    private var base: Base

    /// Wraps `base`, which nothing else may use afterwards.
    package init(_ base: Base) {
        self.base = base
    }

    /// The next element of the wrapped iterator.
    package func next() async throws(Base.Failure) -> Base.Element? {
        try await base.next(isolation: nil)
    }
}
