import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A TCP proxy on the loopback interface that forwards every connection to an upstream port
/// and, when told, drops all of them at once (both sides see the connection reset): the soak
/// test puts it between a replicator and its listener.
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

    /// Connections accepted so far.
    package var connectionCount: Int { lock.withLock { accepted } }
    /// Connections cut by ``dropAll()`` so far.
    package var droppedCount: Int { lock.withLock { dropped } }

    /// Starts listening on an ephemeral loopback port, forwarding to `upstreamPort`.
    package init(upstreamPort: UInt16) throws {
        self.upstreamPort = upstreamPort
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
            let keep = lock.withLock { () -> Bool in
                guard !stopped, connected == 0 else { return false }
                accepted += 1
                open += [client, upstream]
                return true
            }
            guard keep else {
                close(client)
                close(upstream)
                continue
            }
            Thread.detachNewThread { [self] in pump(from: client, to: upstream) }
            Thread.detachNewThread { [self] in pump(from: upstream, to: client) }
        }
    }

    /// Copies bytes one way until either side closes, then closes both (once).
    private func pump(from source: Int32, to destination: Int32) {
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        loop: while true {
            let count = buffer.withUnsafeMutableBytes { read(source, $0.baseAddress, $0.count) }
            if count <= 0 { break }
            var written = 0
            while written < count {
                let result = buffer.withUnsafeBytes { bytes -> Int in
                    guard let base = bytes.baseAddress else { return -1 }
                    return send(destination, base + written, count - written, Int32(MSG_NOSIGNAL))
                }
                if result <= 0 { break loop }
                written += result
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
