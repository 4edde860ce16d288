import Fleece

/// One document as a query reads it: its metadata and its current revision's body.
package struct QueryRow: @unchecked Sendable {
    // @unchecked: the Fleece document is immutable once made.
    package let id: String
    package let sequence: UInt64
    package let isDeleted: Bool
    package let expiration: Int64?
    package let body: FleeceDocument?

    package init(id: String, sequence: UInt64, isDeleted: Bool, expiration: Int64?, body: FleeceDocument?) {
        self.id = id
        self.sequence = sequence
        self.isDeleted = isDeleted
        self.expiration = expiration
        self.body = body
    }
}
