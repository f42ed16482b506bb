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
