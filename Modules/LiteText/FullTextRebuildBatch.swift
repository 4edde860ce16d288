import Fleece

/// Documents a rebuild has read but not yet analysed: their IDs and the bytes of their indexed
/// texts, copied out of the stored bodies (which are only lent while the store is read), so
/// that two threads can tokenize halves of them (decisions FTS-19).
struct FullTextRebuildBatch {
    /// How many properties each document has.
    let columns: Int
    /// Every ID and text, one after another.
    private var bytes: [UInt8] = []
    /// Per document: where its ID is in `bytes`.
    private var ids: [Range<Int>] = []
    /// Per document and column (`columns` per document): where the text is in `bytes`; nil
    /// where the property is missing or not a string.
    private var texts: [Range<Int>?] = []

    init(columns: Int) {
        self.columns = columns
    }

    /// How many documents it holds.
    var count: Int { ids.count }

    /// How many bytes of IDs and texts it holds.
    var byteCount: Int { bytes.count }

    /// Adds a document: its ID, and its indexed properties' values (by column).
    mutating func append(id: UnsafeRawBufferPointer, values: [FleeceValue?]) {
        let start = bytes.count
        bytes.append(contentsOf: id)
        ids.append(start..<bytes.count)
        for value in values {
            guard let value, value.type == .string else {
                texts.append(nil)
                continue
            }
            let start = bytes.count
            value.withPayload { bytes.append(contentsOf: $0) }
            texts.append(start..<bytes.count)
        }
    }

    /// Forgets every document (keeping the memory).
    mutating func removeAll() {
        bytes.removeAll(keepingCapacity: true)
        ids.removeAll(keepingCapacity: true)
        texts.removeAll(keepingCapacity: true)
    }

    /// The first document in the second half of the bytes: splitting there gives two threads
    /// about the same work.
    var middle: Int {
        var index = 0
        while index < ids.count, ids[index].lowerBound < bytes.count / 2 { index += 1 }
        return index
    }

    /// Calls `body` with document `index`'s ID and texts by column (valid only during the call).
    func withDocument<Result>(_ index: Int,
                              _ body: (_ id: UnsafeBufferPointer<UInt8>, _ texts: [UnsafeBufferPointer<UInt8>?]) throws -> Result)
        rethrows -> Result {
        try bytes.withUnsafeBufferPointer { all in
            let documentTexts = texts[(index * columns)..<((index + 1) * columns)].map { range in
                range.map { UnsafeBufferPointer(rebasing: all[$0]) }
            }
            return try body(UnsafeBufferPointer(rebasing: all[ids[index]]), documentTexts)
        }
    }
}
