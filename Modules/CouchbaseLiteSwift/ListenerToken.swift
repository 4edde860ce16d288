import Foundation

/// Identifies a change listener; pass it to ``Database/removeChangeListener(withToken:)``.
public final class ListenerToken: Sendable, Hashable {
    let id: UInt64
    let remove: @Sendable () -> Void

    init(id: UInt64, remove: @escaping @Sendable () -> Void) {
        self.id = id
        self.remove = remove
    }

    /// Equal when they are the same token.
    public static func == (lhs: ListenerToken, rhs: ListenerToken) -> Bool { lhs === rhs }
    /// Hashes what `==` compares.
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}

/// Documents that changed in a database, delivered to database change listeners after the
/// transaction that changed them committed.
public struct DatabaseChange: Sendable {
    /// The database.
    public let database: Database
    /// The IDs of the changed documents, in the order they changed.
    public let documentIDs: [String]
}

/// A change of one document, delivered to document change listeners.
public struct DocumentChange: Sendable {
    /// The database.
    public let database: Database
    /// The changed document's ID.
    public let documentID: String
}
