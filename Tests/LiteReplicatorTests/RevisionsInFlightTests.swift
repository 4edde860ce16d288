import Testing
import TestSupport
@testable import LiteReplicator

/// The pusher's count of revisions awaiting replies: room, draining, the error that ends a push.
/// Each wait is checked both ways: it does not return while the window is full (the waiter is
/// parked and its task unfinished), and it returns once the window has room.
@Suite(.timeLimit(.minutes(TestTimeScale.minutes(1))), .ownThreads) struct RevisionsInFlightTests {
    struct ConnectionEnded: Error, Equatable {}

    /// Returns once a wait has parked (an event, not a delay).
    static func untilParked(_ inFlight: RevisionsInFlight) async {
        while !inFlight.hasWaiter { await Task.yield() }
    }

    @Test func roomIsImmediateBelowTheLimits() async throws {
        let inFlight = RevisionsInFlight()
        for _ in 0..<3 { inFlight.started(bytes: 10) }
        try await inFlight.waitForRoom(limit: 4, byteLimit: 31)
        try await inFlight.wait(untilAtMost: 3)
        #expect(!inFlight.hasWaiter)
        // At the count limit, the same call waits.
        inFlight.started(bytes: 1)
        let waiter = Task { try await inFlight.waitForRoom(limit: 4, byteLimit: 1000) }
        await Self.untilParked(inFlight)
        for _ in 0..<2 { inFlight.finished(bytes: 10) }
        try await waiter.value
    }

    @Test func aFullWindowWaitsUntilHalfIsAnswered() async throws {
        let inFlight = RevisionsInFlight()
        for _ in 0..<4 { inFlight.started(bytes: 1) }
        let waiter = Task { try await inFlight.waitForRoom(limit: 4, byteLimit: 1000) }
        await Self.untilParked(inFlight)
        // Three left is more than half of four: still waiting.
        inFlight.finished(bytes: 1)
        #expect(inFlight.hasWaiter)
        // Two left: woken.
        inFlight.finished(bytes: 1)
        try await waiter.value
        #expect(!inFlight.hasWaiter)
        let drained = Task { try await inFlight.wait(untilAtMost: 0) }
        await Self.untilParked(inFlight)
        inFlight.finished(bytes: 1)
        #expect(inFlight.hasWaiter)
        inFlight.finished(bytes: 1)
        try await drained.value
    }

    @Test func bigRevisionsFillTheWindowByBytes() async throws {
        let inFlight = RevisionsInFlight()
        inFlight.started(bytes: 600)
        inFlight.started(bytes: 500)
        // Two revisions are far below the count limit; the bytes must fall to half (500).
        let waiter = Task { try await inFlight.waitForRoom(limit: 100, byteLimit: 1000) }
        await Self.untilParked(inFlight)
        inFlight.finished(bytes: 600)
        try await waiter.value
        // One revision bigger than the whole window still goes when nothing else is in flight.
        inFlight.finished(bytes: 500)
        try await inFlight.waitForRoom(limit: 100, byteLimit: 1000)
        #expect(!inFlight.hasWaiter)
        inFlight.started(bytes: 5000)
        let next = Task { try await inFlight.waitForRoom(limit: 100, byteLimit: 1000) }
        await Self.untilParked(inFlight)
        inFlight.finished(bytes: 5000)
        try await next.value
    }

    @Test func anErrorThatEndsThePushReachesTheWaiter() async throws {
        let inFlight = RevisionsInFlight()
        for _ in 0..<2 { inFlight.started(bytes: 1) }
        let waiter = Task { try await inFlight.wait(untilAtMost: 0) }
        await Self.untilParked(inFlight)
        inFlight.finished(bytes: 1, failure: ConnectionEnded())
        await #expect(throws: ConnectionEnded.self) { try await waiter.value }
        // Later calls fail at once with the same error.
        await #expect(throws: ConnectionEnded.self) { try await inFlight.waitForRoom(limit: 100, byteLimit: 100) }
    }

    @Test func cancellingTheWaiterThrowsCancellation() async throws {
        let inFlight = RevisionsInFlight()
        inFlight.started(bytes: 1)
        let waiter = Task { try await inFlight.wait(untilAtMost: 0) }
        await Self.untilParked(inFlight)
        waiter.cancel()
        await #expect(throws: CancellationError.self) { try await waiter.value }
        #expect(!inFlight.hasWaiter)
    }
}
