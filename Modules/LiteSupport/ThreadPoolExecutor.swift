#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A task executor that runs jobs on threads of its own, so that work the application does on
/// Swift's cooperative pool (a `saveDocument` in a `Task`, a busy loop) cannot hold up what runs
/// here. Replication, the listener and the WebSocket transport start their tasks with it as
/// their executor preference (docs/decisions.md, Replication-31); their child tasks and the
/// default actors they call inherit it.
///
/// ```swift
/// let task = Task(executorPreference: ThreadPoolExecutor.replication) {
///     await session.serve()
/// }
/// ```
///
/// The threads start with the first job and live as long as the process. Jobs run in the order
/// they were enqueued; task priorities are not looked at.
package final class ThreadPoolExecutor: TaskExecutor, Sendable {

    /// The executor of replication (active and passive), the listener and the WebSocket transport.
    /// Four threads at least: a thread blocked in a database write (waiting on the file's write
    /// lock that an application transaction holds) must not stop the other connections' I/O.
    package static let replication = ThreadPoolExecutor(name: "CBL-replication", threadCount: max(4, processorCount))

    /// What the threads are for (in logs and descriptions).
    package let name: String
    /// How many threads run jobs.
    package let threadCount: Int

    /// The jobs not yet run (read from `head`) and whether the threads were started.
    private struct Queue: Sendable {
        var pending: [UnownedJob] = []
        var head = 0
        var threadsStarted = false
    }
    private let queue = ThreadCondition(Queue())

    /// An executor with `threadCount` threads (at least one), started on the first job.
    package init(name: String, threadCount: Int) {
        self.name = name
        self.threadCount = max(1, threadCount)
    }

    /// Queues a job for the next free thread.
    package func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let start = queue.withLock { queue in
            queue.pending.append(job)
            defer { queue.threadsStarted = true }
            self.queue.signal()
            return !queue.threadsStarted
        }
        if start { startThreads() }
    }

    /// Whether the calling thread is one of this executor's (tests and assertions use it).
    package var isCurrentThread: Bool {
        Self.currentExecutor == Unmanaged.passUnretained(self).toOpaque()
    }

    private func nextJob() -> UnownedJob {
        queue.withLock(when: { $0.head < $0.pending.count }) { queue in
            let job = queue.pending[queue.head]
            queue.head += 1
            // The queue is read from `head`; it is compacted when drained or when half of it is spent.
            if queue.head == queue.pending.count {
                queue.pending.removeAll(keepingCapacity: true)
                queue.head = 0
            } else if queue.head >= 1024, queue.head * 2 >= queue.pending.count {
                queue.pending.removeFirst(queue.head)
                queue.head = 0
            }
            return job
        }
    }

    private func runJobs() -> Never {
        Self.currentExecutor = Unmanaged.passUnretained(self).toOpaque()
        let executor = asUnownedTaskExecutor()
        while true {
            nextJob().runSynchronously(on: executor)
        }
    }

    private func startThreads() {
        for _ in 0..<threadCount {
            // The thread keeps the executor: executors here are process-wide and never freed.
            let context = Unmanaged.passRetained(self).toOpaque()
            var attributes = pthread_attr_t()
            pthread_attr_init(&attributes)
            pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
            var thread = pthread_t()
            let started = pthread_create(&thread, &attributes, { context in
                guard let context else { return nil }
                let executor = Unmanaged<ThreadPoolExecutor>.fromOpaque(context).takeUnretainedValue()
                executor.runJobs()
            }, context)
            pthread_attr_destroy(&attributes)
            // A thread that could not be made leaves the others (and at worst none: then the
            // jobs wait, as they would on a starved pool, rather than the process trapping).
            if started != 0 { Unmanaged<ThreadPoolExecutor>.fromOpaque(context).release() }
        }
    }

    /// The executor whose thread this is (nil on any other thread).
    private static var currentExecutor: UnsafeMutableRawPointer? {
        get { pthread_getspecific(threadKey) }
        set { pthread_setspecific(threadKey, newValue) }
    }
    private static let threadKey: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key, nil)
        return key
    }()

    private static var processorCount: Int { Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))) }
}
