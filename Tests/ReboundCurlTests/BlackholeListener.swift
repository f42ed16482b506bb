import Glibc
import TestSupport

/// A listening socket that never accepts, with its backlog full: connecting to it hangs, which is
/// how a connect timeout is provoked on loopback.
struct BlackholeListener {
    let port: Int
    private let listener: Int32
    private let fillers: [Int32]

    init() throws {
        listener = try boundLoopbackSocket()
        guard listen(listener, 0) == 0 else { throw LoopbackSocketError(operation: "listen") }
        port = try boundPort(of: listener)
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
        let fd = try boundLoopbackSocket()
        defer { Glibc.close(fd) }
        return try boundPort(of: fd)
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
