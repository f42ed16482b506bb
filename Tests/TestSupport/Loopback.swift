public import Glibc

/// 127.0.0.1 at `port`.
private func loopbackAddress(port: Int) -> sockaddr_in {
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = UInt16(port).bigEndian
    address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
    return address
}

/// Calls `operation` (`connect`, `bind`) with 127.0.0.1 at `port` as a socket address, and
/// returns its result.
public func withLoopbackAddress(
    port: Int,
    _ operation: (UnsafePointer<sockaddr>, socklen_t) -> Int32
) -> Int32 {
    var address = loopbackAddress(port: port)
    return withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            operation($0, socklen_t(MemoryLayout<sockaddr_in>.size))
        }
    }
}

/// A socket call that failed, by name (`socket`, `bind`, `listen`, `getsockname`).
public struct LoopbackSocketError: Error {
    public var operation: String

    public init(operation: String) {
        self.operation = operation
    }
}

/// A TCP socket bound to `port` on 127.0.0.1 (0: any free port), not yet listening.
///
/// While it stays open without listening, connections to its port are refused, and no other server
/// of the process (another test's, running beside) can be given the port: tests that need a refused
/// connection hold one, rather than a port whose server has just closed.
public func boundLoopbackSocket(port: Int = 0) throws -> Int32 {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { throw LoopbackSocketError(operation: "socket") }
    // Binding a port again right after its listener closed needs this (its connections linger).
    var on: Int32 = 1
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, socklen_t(MemoryLayout<Int32>.size))
    let bound = withLoopbackAddress(port: port) { bind(fd, $0, $1) }
    guard bound == 0 else {
        close(fd)
        throw LoopbackSocketError(operation: "bind")
    }
    return fd
}

/// The port `fd` is bound to.
public func boundPort(of fd: Int32) throws -> Int {
    var address = sockaddr_in()
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let result = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
    }
    guard result == 0 else { throw LoopbackSocketError(operation: "getsockname") }
    return Int(UInt16(bigEndian: address.sin_port))
}
