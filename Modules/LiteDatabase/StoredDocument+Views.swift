extension StoredDocument {
    /// The current revision's Fleece body inside a record's stored bytes (a revision tree), found
    /// without decoding the tree: what a query scan reads. Nil for a deletion; an empty body
    /// stands for an empty dictionary.
    ///
    /// - Throws: `DatabaseError(.corruptRevisionData)` when the tree's first revision is malformed.
    package static func currentBody(inRecordBody body: UnsafeRawBufferPointer) throws -> UnsafeRawBufferPointer? {
        try RevisionTreeCodec.currentBody(in: body)
    }
}
