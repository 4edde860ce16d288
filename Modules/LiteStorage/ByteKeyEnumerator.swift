/// A cursor over byte-key entries, pulled one at a time; see ``RecordEnumerator`` for the
/// resource rules.
package final class ByteKeyEnumerator {
    private var source: (() throws -> ByteKeyEntry?)?
    private var finish: (() -> Void)?

    /// Wraps an engine cursor.
    package init(next: @escaping () throws -> ByteKeyEntry?, close: @escaping () -> Void) {
        source = next
        finish = close
    }

    /// The next entry, or `nil` at the end.
    package func next() throws -> ByteKeyEntry? {
        guard let source else { return nil }
        do {
            if let entry = try source() { return entry }
        } catch {
            close()
            throw error
        }
        close()
        return nil
    }

    /// Releases the cursor's resources.
    package func close() {
        source = nil
        let finish = self.finish
        self.finish = nil
        finish?()
    }

    /// Reads every remaining entry into an array.
    package func collect() throws -> [ByteKeyEntry] {
        var entries: [ByteKeyEntry] = []
        while let entry = try next() { entries.append(entry) }
        return entries
    }

    deinit { finish?() }
}
