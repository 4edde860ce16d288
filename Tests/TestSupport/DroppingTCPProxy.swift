import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A TCP proxy on the loopback interface that forwards every connection to an upstream port
/// and, when told, drops all of them at once (both sides see the connection reset): the soak
/// test puts it between a replicator and its listener. With ``ProxyFaults`` it also cuts
/// connections at seeded random byte offsets, delays and splits chunks, and flips a byte inside
/// a WebSocket message (the fault-injection tests).
///
/// Plain sockets and one thread per direction of each connection: the proxy's traffic is small
/// and this keeps it independent of the event loops it tests.
package final class DroppingTCPProxy: @unchecked Sendable {
    // @unchecked: every mutable field is guarded by `lock`.
    /// The port the proxy listens on (127.0.0.1).
    package let port: UInt16
    private let upstreamPort: UInt16
    private let listener: Int32
    private let lock = NSLock()
    private var open: [Int32] = []
    private var stopped = false
    private var accepted = 0
    private var dropped = 0
    private let faults: ProxyFaults
    private var corruptions = 0
    /// Connections (by number) whose bytes are swallowed: a silent peer.
    private var silenced = Set<Int>()

    /// Connections accepted so far.
    package var connectionCount: Int { lock.withLock { accepted } }
    /// Connections cut by ``dropAll()`` so far.
    package var droppedCount: Int { lock.withLock { dropped } }

    /// Bytes flipped by the `corruptMessage` fault so far.
    package var corruptionCount: Int { lock.withLock { corruptions } }

    /// Starts listening on an ephemeral loopback port, forwarding to `upstreamPort`.
    package init(upstreamPort: UInt16, faults: ProxyFaults = .none) throws {
        self.upstreamPort = upstreamPort
        self.faults = faults
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { throw ProxyError("socket: errno \(errno)") }
        var address = Self.loopback(port: 0)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(socket, 64) == 0 else {
            close(socket)
            throw ProxyError("bind/listen: errno \(errno)")
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(socket, $0, &length) }
        }
        port = UInt16(bigEndian: address.sin_port)
        listener = socket
        Thread.detachNewThread { [self] in acceptLoop() }
    }

    /// Why the proxy could not start.
    package struct ProxyError: Error, CustomStringConvertible {
        /// What failed.
        package let description: String
        init(_ description: String) { self.description = description }
    }

    private static func loopback(port: UInt16) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return address
    }

    private func acceptLoop() {
        while true {
            let client = accept(listener, nil, nil)
            if client < 0 {
                if lock.withLock({ stopped }) { return }
                continue
            }
            let upstream = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var address = Self.loopback(port: upstreamPort)
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(upstream, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
            let number = lock.withLock { () -> Int? in
                guard !stopped, connected == 0 else { return nil }
                accepted += 1
                open += [client, upstream]
                return accepted
            }
            guard let number else {
                close(client)
                close(upstream)
                continue
            }
            let faulty = number <= faults.faultyConnections ? faults : nil
            let budget = ByteBudget(faults: faulty, connection: number)
            Thread.detachNewThread { [self] in
                pump(from: client, to: upstream, faults: faulty, direction: .toServer, budget: budget, connection: number)
            }
            Thread.detachNewThread { [self] in
                pump(from: upstream, to: client, faults: faulty, direction: .toClient, budget: budget, connection: number)
            }
        }
    }

    /// The bytes one faulty connection may still carry before it is cut (both directions).
    private final class ByteBudget: @unchecked Sendable {
        // @unchecked: `remaining` is guarded by `lock`.
        private let lock = NSLock()
        private var remaining: Int?
        private var cutCounted = false

        init(faults: ProxyFaults?, connection: Int) {
            guard let range = faults?.dropAfterBytes, let seed = faults?.seed else { return }
            var random = SplitMix64(seed: seed &+ UInt64(connection) &* 0x9E37)
            remaining = Int.random(in: range, using: &random)
        }

        /// How many of `count` bytes may pass; fewer means the connection is cut after them.
        func take(_ count: Int) -> Int {
            lock.withLock {
                guard let left = remaining else { return count }
                let allowed = min(left, count)
                remaining = left - allowed
                return allowed
            }
        }

        /// True the first time only: both directions may run out, the connection is cut once.
        func countCut() -> Bool {
            lock.withLock {
                defer { cutCounted = true }
                return !cutCounted
            }
        }
    }

    /// Copies bytes one way until either side closes (or a fault cuts it), then closes both (once).
    private func pump(from source: Int32, to destination: Int32, faults: ProxyFaults?, direction: ProxyFaults.Direction,
                      budget: ByteBudget, connection: Int) {
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        var random = SplitMix64(seed: (faults?.seed ?? 0) &+ UInt64(connection) &* 31 &+ (direction == .toServer ? 1 : 2))
        var scanner = WebSocketPayloadScanner(corruptMessage: faults?.corruptDirection == direction ? faults?.corruptMessage : nil)
        loop: while true {
            var count = buffer.withUnsafeMutableBytes { read(source, $0.baseAddress, $0.count) }
            if count <= 0 { break }
            // A silenced connection stays open and reads on, but nothing gets through.
            if lock.withLock({ silenced.contains(connection) }) { continue }
            let wasCorrupted = scanner.corrupted
            scanner.scan(&buffer, count: count)
            if scanner.corrupted && !wasCorrupted { lock.withLock { corruptions += 1 } }
            let allowed = budget.take(count)
            let cut = allowed < count
            count = allowed
            var written = 0
            while written < count {
                var piece = count - written
                if let delays = faults?.delayMilliseconds, let faults {
                    piece = min(piece, Int.random(in: 1...faults.maxChunk, using: &random))
                    // Pacing of the fault (a slow network), not a wait for work.
                    Thread.sleep(forTimeInterval: Double(Int.random(in: delays, using: &random)) / 1000)
                }
                let result = buffer.withUnsafeBytes { bytes -> Int in
                    guard let base = bytes.baseAddress else { return -1 }
                    return send(destination, base + written, piece, Int32(MSG_NOSIGNAL))
                }
                if result <= 0 { break loop }
                written += result
            }
            if cut {
                if budget.countCut() { lock.withLock { dropped += 1 } }
                break
            }
        }
        shutdown(source, Int32(SHUT_RDWR))
        shutdown(destination, Int32(SHUT_RDWR))
        // The second pump to finish (its partner's source is already gone) closes both.
        let closeNow = lock.withLock { () -> Bool in
            open.removeAll { $0 == source }
            return !open.contains(destination)
        }
        if closeNow {
            close(source)
            close(destination)
        }
    }

    /// Makes every connection open now silent: both stay connected, nothing is forwarded any
    /// more (a peer or path that died without TCP noticing). Later connections are forwarded.
    package func silenceAll() {
        lock.withLock { if accepted > 0 { silenced.formUnion(1...accepted) } }
    }

    /// Cuts every open connection (the pumps see the reset and finish); new ones are accepted.
    package func dropAll() {
        let sockets = lock.withLock { () -> [Int32] in
            dropped += open.count / 2
            return open
        }
        for socket in sockets { shutdown(socket, Int32(SHUT_RDWR)) }
    }

    /// Stops accepting and cuts every connection.
    package func stop() {
        lock.withLock { stopped = true }
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
        dropAll()
    }
}
