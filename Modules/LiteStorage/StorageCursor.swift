/// A cursor over records (``RecordEnumerator``) or byte-key entries (``ByteKeyEnumerator``),
/// pulled one at a time.
///
/// The cursor holds engine resources (a statement, an iterator, a connection) until it returns
/// `nil`, throws, or `close()` is called; release it promptly.
///
/// ```swift
/// let cursor = try store.enumerate(since: 0)
/// while let record = try cursor.next() { … }
/// ```
package final class StorageCursor<Element> {
    private var source: (() throws -> Element?)?
    private var finish: (() -> Void)?

    /// Wraps an engine cursor: `next` yields elements, `close` releases its resources once.
    package init(next: @escaping () throws -> Element?, close: @escaping () -> Void) {
        source = next
        finish = close
    }

    /// The next element, or `nil` at the end (after which resources are released).
    package func next() throws -> Element? {
        guard let source else { return nil }
        do {
            if let element = try source() { return element }
        } catch {
            close()
            throw error
        }
        close()
        return nil
    }

    /// Releases the cursor's resources; later `next()` calls return `nil`.
    package func close() {
        source = nil
        let finish = self.finish
        self.finish = nil
        finish?()
    }

    /// Reads every remaining element into an array.
    package func collect() throws -> [Element] {
        var elements: [Element] = []
        while let element = try next() { elements.append(element) }
        return elements
    }

    deinit { finish?() }
}
