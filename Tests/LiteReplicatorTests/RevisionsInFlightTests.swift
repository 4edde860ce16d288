import Testing
@testable import LiteReplicator

/// The pusher's count of revisions awaiting replies: room, draining, the error that ends a push.
@Suite struct RevisionsInFlightTests {
    struct ConnectionEnded: Error, Equatable {}

    @Test func roomIsImmediateBelowTheLimit() async throws {
        let inFlight = RevisionsInFlight()
        for _ in 0..<3 { inFlight.started() }
        try await inFlight.waitForRoom(limit: 4)
        try await inFlight.wait(untilAtMost: 3)
    }

    @Test func aFullWindowWaitsUntilHalfIsAnswered() async throws {
        let inFlight = RevisionsInFlight()
        for _ in 0..<4 { inFlight.started() }
        let waiter = Task { try await inFlight.waitForRoom(limit: 4) }
        // Each finish wakes the waiter only once at most 2 are left; the task ends then.
        for _ in 0..<2 { inFlight.finished() }
        try await waiter.value
        let drained = Task { try await inFlight.wait(untilAtMost: 0) }
        for _ in 0..<2 { inFlight.finished() }
        try await drained.value
    }

    @Test func anErrorThatEndsThePushReachesTheWaiter() async throws {
        let inFlight = RevisionsInFlight()
        for _ in 0..<2 { inFlight.started() }
        let waiter = Task { try await inFlight.wait(untilAtMost: 0) }
        inFlight.finished(failure: ConnectionEnded())
        await #expect(throws: ConnectionEnded.self) { try await waiter.value }
        // Later calls fail at once with the same error.
        await #expect(throws: ConnectionEnded.self) { try await inFlight.waitForRoom(limit: 100) }
    }

    @Test func cancellingTheWaiterThrowsCancellation() async throws {
        let inFlight = RevisionsInFlight()
        inFlight.started()
        let waiter = Task { try await inFlight.wait(untilAtMost: 0) }
        waiter.cancel()
        await #expect(throws: CancellationError.self) { try await waiter.value }
    }
}
