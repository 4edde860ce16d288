#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// How much longer than usual the tests' time budgets are in this run.
///
/// Under the thread sanitizer every instruction of our code, NIO and BoringSSL runs about five to
/// fifteen times slower, so budgets set for a plain build (a 15 s WebSocket connect, a 1 s push
/// while the pool is blocked, a suite's time limit) measure the sanitizer rather than the code:
/// the first whole-suite run failed 18 tests that way and nothing else (docs/reliability.md). A
/// sanitized run is for races, so its budgets stretch by ``factor``; a plain run keeps 1.
///
/// `CBL_TEST_TIME_SCALE` sets the factor (1–20); otherwise it is 6 when the thread sanitizer's
/// runtime is loaded and 1 when it is not.
///
/// ```swift
/// @Suite(.timeLimit(.minutes(TestTimeScale.minutes(1)))) struct HandshakeTests { … }
/// #expect(seconds < TestTimeScale.seconds(1.0))
/// ```
package enum TestTimeScale {
    /// The factor every budget is multiplied by.
    package static let factor: Int = {
        if let text = ProcessInfo.processInfo.environment["CBL_TEST_TIME_SCALE"], let value = Int(text) {
            return min(max(value, 1), 20)
        }
        return threadSanitizerIsLoaded ? 6 : 1
    }()

    /// Whether this process runs under the thread sanitizer (its runtime's entry point is linked in).
    package static var threadSanitizerIsLoaded: Bool {
        dlsym(nil, "__tsan_init") != nil
    }

    /// A test's or suite's time limit of `minutes` in a plain run, for `.timeLimit(.minutes(_:))`.
    package static func minutes(_ minutes: Int) -> Int { minutes * factor }

    /// A budget of `seconds` in a plain run.
    package static func seconds(_ seconds: Double) -> Double { seconds * Double(factor) }

    /// A budget of `duration` in a plain run.
    package static func scaled(_ duration: Duration) -> Duration { duration * factor }
}
