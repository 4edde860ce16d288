extension StoredDocument {
    /// The current revision's Fleece body inside a record's stored bytes (a revision tree), found
    /// without decoding the tree: what a query scan reads. Nil for a deletion; an empty body
    /// stands for an empty dictionary.
    ///
    /// - Throws: `DatabaseError(.corruptRevisionData)` when the tree's first revision is malformed.
    package static func currentBody(inRecordBody body: UnsafeRawBufferPointer) throws -> UnsafeRawBufferPointer? {
        try RevisionTreeCodec.currentBody(in: body)
    }

    /// The current revision's ID (`1-abc…`) inside a record's stored bytes, found without
    /// decoding the tree; nil for an empty tree.
    package static func currentRevisionID(inRecordBody body: UnsafeRawBufferPointer) throws -> String? {
        try RevisionTreeCodec.currentRevision(in: body)?.id.string
    }
}
