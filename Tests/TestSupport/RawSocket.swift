import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A hostile peer's socket, written from the RFCs and the BLIP spec rather than with this
/// project's client: a blocking TCP socket, a WebSocket handshake and frames made by hand
/// (the BLIP frames inside are the tests' own). Every call blocks; tests run them through
/// ``RawSocket/offPool(_:)`` so that no thread of the concurrency pool waits on a socket.
package final class RawSocket: @unchecked Sendable {
    // @unchecked: one test drives a socket at a time.
    private var descriptor: Int32
    /// Bytes read past what the last call consumed.
    private var pending: [UInt8] = []

    /// A socket call failed, or the server hung up too early.
    package struct Failure: Error, CustomStringConvertible {
        package let description: String
        package init(description: String) { self.description = description }
    }

    /// Connects to 127.0.0.1:`port`; reads time out after `timeout` seconds (stretched by
    /// ``TestTimeScale``).
    package init(port: UInt16, timeout: Double = 30) throws {
        let timeout = TestTimeScale.seconds(timeout)
        descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw Failure(description: "socket: \(String(cString: strerror(errno)))") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else {
            let reason = String(cString: strerror(errno))
            Glibc.close(descriptor)
            throw Failure(description: "connect: \(reason)")
        }
        var interval = timeval(tv_sec: Int(timeout), tv_usec: Int(timeout.truncatingRemainder(dividingBy: 1) * 1_000_000))
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &interval, socklen_t(MemoryLayout<timeval>.size))
    }

    deinit { close() }

    /// Ends this side's sending (the server reads end of stream), keeping the reading side.
    package func shutdownWriting() {
        if descriptor >= 0 { shutdown(descriptor, Int32(SHUT_WR)) }
    }

    /// Reads what the server sends until it closes the connection, at most `limit` bytes.
    package func readUntilEndOfStream(limit: Int = 1 << 20) throws -> [UInt8] {
        while pending.count < limit, try fill() {}
        defer { pending.removeAll() }
        return pending
    }

    package func close() {
        if descriptor >= 0 { Glibc.close(descriptor) }
        descriptor = -1
    }

    /// Runs blocking socket work on a thread of its own.
    package static func offPool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread {
                continuation.resume(with: Result { try body() })
            }
        }
    }

    package func send(_ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard written > 0 else { throw Failure(description: "send: \(String(cString: strerror(errno)))") }
            offset += written
        }
    }

    /// Reads at least one more byte into `pending`; false at end of stream (the peer closed).
    private func fill() throws -> Bool {
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
        if count == 0 { return false }
        guard count > 0 else {
            if errno == ECONNRESET { return false }
            throw Failure(description: "recv: \(String(cString: strerror(errno)))")
        }
        pending += buffer[0..<count]
        return true
    }

    /// Waits until the other side closes the connection (end of stream or reset), dropping
    /// whatever it sends meanwhile.
    package func waitForEndOfStream() throws {
        while try fill() { pending.removeAll() }
    }

    private func read(_ count: Int) throws -> [UInt8] {
        while pending.count < count {
            guard try fill() else { throw Failure(description: "the server closed the connection") }
        }
        defer { pending.removeFirst(count) }
        return Array(pending[0..<count])
    }

    /// Sends an HTTP upgrade request for `/<database>/_blipsync` and returns the status line
    /// and headers of the answer.
    package func upgrade(database: String, port: UInt16, headers: [String] = []) throws -> String {
        var request = "GET /\(database)/_blipsync HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nUpgrade: websocket\r\n"
            + "Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"
            + "Sec-WebSocket-Protocol: BLIP_3+CBMobile_2\r\n"
        for header in headers { request += header + "\r\n" }
        try send(Array((request + "\r\n").utf8))
        while true {
            if let end = pending.firstRange(of: Array("\r\n\r\n".utf8)) {
                let head = String(decoding: pending[0..<end.lowerBound], as: UTF8.self)
                pending.removeFirst(end.upperBound)
                return head
            }
            guard try fill() else { throw Failure(description: "the server closed during the handshake") }
        }
    }

    /// Sends one masked binary WebSocket message (a client's, RFC 6455 §5.2).
    package func sendMessage(_ payload: [UInt8], opcode: UInt8 = 0x2) throws {
        var frame: [UInt8] = [0x80 | opcode]
        switch payload.count {
        case ..<126: frame.append(0x80 | UInt8(payload.count))
        case ..<65536: frame += [0x80 | 126, UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)]
        default:
            frame.append(0x80 | 127)
            for shift in stride(from: 56, through: 0, by: -8) { frame.append(UInt8(truncatingIfNeeded: payload.count >> shift)) }
        }
        let mask: [UInt8] = [0x12, 0x34, 0x56, 0x78]
        frame += mask
        frame += payload.enumerated().map { $0.element ^ mask[$0.offset % 4] }
        try send(frame)
    }

    /// What the server sent next: a binary message, or its close frame's code.
    package enum Incoming {
        case message([UInt8])
        case close(code: UInt16?, reason: String)
        case ping
    }

    /// Reads the server's next frame (servers do not mask).
    package func receive() throws -> Incoming {
        let header = try read(2)
        let opcode = header[0] & 0x0F
        var length = Int(header[1] & 0x7F)
        if length == 126 {
            let bytes = try read(2)
            length = Int(bytes[0]) << 8 | Int(bytes[1])
        } else if length == 127 {
            length = try read(8).reduce(0) { $0 << 8 | Int($1) }
        }
        let payload = try read(length)
        switch opcode {
        case 0x8:
            let code = payload.count >= 2 ? UInt16(payload[0]) << 8 | UInt16(payload[1]) : nil
            return .close(code: code, reason: String(decoding: payload.dropFirst(2), as: UTF8.self))
        case 0x9: return .ping
        default: return .message(payload)
        }
    }

    /// Reads until the server's close frame (skipping messages and pings, never answering
    /// them) and returns its code; nil when the connection ends without one.
    package func closeCode() throws -> UInt16? {
        while true {
            switch try receive() {
            case .close(let code, _): return code
            case .message, .ping: continue
            }
        }
    }
}

