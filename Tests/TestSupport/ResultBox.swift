/// A thread's result: written by that thread before it signals, read by the waiter after.
final class ResultBox<T>: @unchecked Sendable {
    var result: Result<T, any Error>?
}
