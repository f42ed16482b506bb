import Dispatch
import Glibc

/// A plain TCP connection to a loopback server, for tests about what goes on the wire.
///
/// It sends bytes as given and reads what comes back until the server closes the connection, so a
/// test can send what no HTTP client would (an absurd `Content-Length`, a half-close) and see the
/// exact answer. Every read gives up after a generous receive timeout, so a server that never
/// answers fails the test instead of hanging it.
///
/// Its calls block, so tests make them through ``onOwnThread(_:)``; one task at a time uses a connection.
public final class RawConnection: @unchecked Sendable {
    public struct SocketError: Error { public var operation: String }

    fileprivate let fd: Int32

    /// Connects to `port` on 127.0.0.1.
    public init(port: Int) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw SocketError(operation: "socket") }
        var timeout = timeval(tv_sec: 20, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let connected = withLoopbackAddress(port: port) { connect(fd, $0, $1) }
        guard connected == 0 else {
            Glibc.close(fd)
            throw SocketError(operation: "connect")
        }
    }

    deinit {
        Glibc.close(fd)
    }

    /// Sends `text` in UTF-8.
    public func send(_ text: String) throws {
        try send(Array(text.utf8))
    }

    /// Sends `bytes`, all of them.
    public func send(_ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes {
                Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
            }
            guard sent > 0 else { throw SocketError(operation: "send") }
            offset += sent
        }
    }

    /// Ends what the client sends (a half-close); the server can still answer.
    public func closeOutput() {
        shutdown(fd, Int32(SHUT_WR))
    }

    /// Everything the server sends until it closes the connection, in UTF-8 (lossy).
    ///
    /// - Throws: ``SocketError`` if the server neither sends nor closes within the receive timeout.
    public func readUntilClosed() throws -> String {
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count == 0 { break }
            guard count > 0 else {
                // A reset after the response still leaves the response to check.
                if errno == ECONNRESET && !received.isEmpty { break }
                throw SocketError(operation: "recv (errno \(errno))")
            }
            received += buffer[..<count]
        }
        return String(decoding: received, as: UTF8.self)
    }

    /// Reads until `marker` has been received, and returns everything received so far.
    public func read(until marker: String) throws -> String {
        var received: [UInt8] = []
        var byte: UInt8 = 0
        let markerBytes = Array(marker.utf8)
        while !received.ends(with: markerBytes) {
            let count = recv(fd, &byte, 1, 0)
            guard count == 1 else { throw SocketError(operation: "recv before \(marker.debugDescription)") }
            received.append(byte)
        }
        return String(decoding: received, as: UTF8.self)
    }
}

extension Array where Element == UInt8 {
    fileprivate func ends(with suffix: [UInt8]) -> Bool {
        count >= suffix.count && self[(count - suffix.count)...].elementsEqual(suffix)
    }
}

extension RawConnection {
    /// Sends as much of `bytes` as the connection takes, and returns how many bytes that was.
    ///
    /// Stops once the socket has accepted nothing for `patience`: the receiver has stopped reading and
    /// the buffers between are full. Sends everything if the receiver keeps reading.
    public func sendUntilBlocked(_ bytes: [UInt8], patience: Duration) -> Int {
        let flags = fcntl(fd, F_GETFL)
        _ = fcntl(fd, F_SETFL, flags | O_NONBLOCK)
        defer { _ = fcntl(fd, F_SETFL, flags) }
        let patienceInMilliseconds = Int32(patience.components.seconds * 1000)
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes {
                Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
            }
            if sent > 0 {
                offset += sent
                continue
            }
            guard errno == EAGAIN || errno == EWOULDBLOCK else { break }
            var waiting = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
            guard poll(&waiting, 1, patienceInMilliseconds) > 0 else { break }
        }
        return offset
    }
}

extension RawConnection {
    /// Sends `byte` once per `interval` until the server answers, and returns everything it sends
    /// until it closes the connection; after `maximumBytes` bytes without an answer, returns `""`.
    ///
    /// Between two bytes it waits for the server to send something, so it stops sending as soon as an
    /// answer arrives.
    public func trickle(_ byte: UInt8, every interval: Duration, maximumBytes: Int) throws -> String {
        let intervalInMilliseconds = Int32(
            interval.components.seconds * 1000 + interval.components.attoseconds / 1_000_000_000_000_000)
        for _ in 0..<maximumBytes {
            var waiting = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            if poll(&waiting, 1, intervalInMilliseconds) > 0 { return try readUntilClosed() }
            try send([byte])
        }
        return ""
    }
}

/// Sends one `GET` that asks the server to close after answering, and returns the whole answer.
public func exchange(_ path: String, port: Int) async throws -> String {
    try await onOwnThread {
        let connection = try RawConnection(port: port)
        try connection.send("GET \(path) HTTP/1.1\r\nHost: loopback\r\nConnection: close\r\n\r\n")
        return try connection.readUntilClosed()
    }
}
