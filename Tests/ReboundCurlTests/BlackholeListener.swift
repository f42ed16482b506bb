import Glibc
import TestSupport

/// A listening socket that never accepts, with its backlog full: connecting to it hangs, which is
/// how a connect timeout is provoked on loopback.
struct BlackholeListener {
    struct SocketError: Error { var operation: String }

    let port: Int
    private let listener: Int32
    private let fillers: [Int32]

    init() throws {
        listener = try Self.boundSocket()
        guard listen(listener, 0) == 0 else { throw SocketError(operation: "listen") }
        port = try Self.port(of: listener)
        // With a backlog of 0 the kernel queues one connection; further SYNs are dropped.
        var fillers: [Int32] = []
        for _ in 0..<3 {
            let filler = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
            _ = withLoopbackAddress(port: port) { connect(filler, $0, $1) }
            fillers.append(filler)
        }
        self.fillers = fillers
        usleep(100_000)
    }

    func close() {
        for filler in fillers { Glibc.close(filler) }
        Glibc.close(listener)
    }

    /// A loopback port that nothing listens on (it was bound, then released).
    static func unusedPort() throws -> Int {
        let fd = try boundSocket()
        defer { Glibc.close(fd) }
        return try port(of: fd)
    }

    /// A socket bound to `port` on 127.0.0.1 (0: any free port), not yet listening.
    static func boundSocket(port: Int = 0) throws -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw SocketError(operation: "socket") }
        // Binding a port again right after its listener closed needs this (its connections linger).
        var on: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, socklen_t(MemoryLayout<Int32>.size))
        let bound = withLoopbackAddress(port: port) { bind(fd, $0, $1) }
        guard bound == 0 else {
            Glibc.close(fd)
            throw SocketError(operation: "bind")
        }
        return fd
    }

    /// The port `fd` is bound to.
    static func port(of fd: Int32) throws -> Int {
        var address = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let result = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard result == 0 else { throw SocketError(operation: "getsockname") }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// Makes `accept` and `recv` on `socket` give up after 60 seconds, so that a test that
    /// fails early leaves no thread waiting for ever.
    static func limitWaits(of socket: Int32) {
        var limit = timeval(tv_sec: 60, tv_usec: 0)
        setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
    }

    /// Reads until the end of a request head (the tests' raw servers get no bodies); false if the
    /// connection closed or failed first.
    static func readRequestHead(from connection: Int32) -> Bool {
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while !received.suffix(4).elementsEqual("\r\n\r\n".utf8) {
            let count = buffer.withUnsafeMutableBytes { recv(connection, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { return false }
            received += buffer[..<count]
        }
        return true
    }
}
