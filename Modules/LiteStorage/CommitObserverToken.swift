/// Identifies a registered commit observer.
package struct CommitObserverToken: Hashable, Sendable {
    /// A number unique in the process.
    package let id: UInt64
    /// Wraps a number.
    package init(id: UInt64) { self.id = id }
}
