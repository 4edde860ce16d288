/// A cursor over records, pulled one at a time.
///
/// The cursor holds engine resources (a statement, an iterator, a connection) until it returns
/// `nil`, throws, or `close()` is called; release it promptly.
///
/// ```swift
/// let cursor = try store.enumerate(since: 0)
/// while let record = try cursor.next() { … }
/// ```
package final class RecordEnumerator {
    private var source: (() throws -> Record?)?
    private var finish: (() -> Void)?

    /// Wraps an engine cursor: `next` yields records, `close` releases its resources once.
    package init(next: @escaping () throws -> Record?, close: @escaping () -> Void) {
        source = next
        finish = close
    }

    /// The next record, or `nil` at the end (after which resources are released).
    package func next() throws -> Record? {
        guard let source else { return nil }
        do {
            if let record = try source() { return record }
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

    /// Reads every remaining record into an array.
    package func collect() throws -> [Record] {
        var records: [Record] = []
        while let record = try next() { records.append(record) }
        return records
    }

    deinit { finish?() }
}
