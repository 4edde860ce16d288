extension Database {
    /// Waits until the storage engine's background work after earlier commits (SQLite's WAL
    /// checkpoint) has finished. Not public: the benchmark tool calls it between timed runs so
    /// that one run's background work is not timed as part of the next.
    package func waitForBackgroundWork() {
        core.dataFile.waitForBackgroundWork()
    }
}
