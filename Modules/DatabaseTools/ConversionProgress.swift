/// How far a conversion, verification or import has got, for progress display.
package struct ConversionProgress: Sendable, Hashable {
    /// What is being done.
    package enum Phase: String, Sendable {
        /// Copying records and index entries.
        case records
        /// Copying (or linking) blobs.
        case blobs
        /// Comparing source and destination.
        case verifying
        /// Importing documents.
        case importing
    }

    /// What is being done.
    package var phase: Phase
    /// Items done so far in this phase.
    package var completed: Int
    /// Items this phase will do in all (0 when unknown).
    package var total: Int

    /// Makes a progress value.
    package init(phase: Phase, completed: Int, total: Int) {
        self.phase = phase
        self.completed = completed
        self.total = total
    }
}
