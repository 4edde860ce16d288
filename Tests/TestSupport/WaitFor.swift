import Dispatch

/// Waits for `semaphore`, failing after a generous bound so a broken listener cannot hang CI
/// (stretched by ``TestTimeScale`` in a sanitized run).
package func waitFor(_ semaphore: DispatchSemaphore, seconds: Double = 10) -> Bool {
    semaphore.wait(timeout: .now() + TestTimeScale.seconds(seconds)) == .success
}
