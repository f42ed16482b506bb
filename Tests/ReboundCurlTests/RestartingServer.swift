import Foundation
import Glibc
import TestSupport

/// A one-connection HTTP/1.1 server that goes away in the middle of a kept-alive connection.
///
/// Each ``serveOneConnection()`` listens on the same port, answers the first request of the one
/// connection it accepts (keeping it alive, with its listener already closed), and on the second
/// request closes the connection without a word. libcurl sees a reused connection die under a request,
/// decides to send it again on a new connection, and finds nobody listening: the transfer fails
/// to connect after libcurl counted a re-send, and never sends the request again.
final class RestartingServer: Sendable {
    let port: Int
    /// A socket bound to the port that never listens. While the server is away, connections are
    /// refused, and no other test's server can be given the port: the kernel does not hand out a
    /// bound port to a socket that binds port 0.
    private let reservation: Int32
    private let done = DispatchSemaphore(value: 0)

    init() throws {
        let reservation = try boundLoopbackSocket()
        do {
            port = try boundPort(of: reservation)
        } catch {
            Glibc.close(reservation)
            throw error
        }
        self.reservation = reservation
    }

    deinit {
        Glibc.close(reservation)
    }

    /// Listens again and serves one connection as described above, on a thread of its own.
    func serveOneConnection() throws {
        let listener = try boundLoopbackSocket(port: port)
        guard listen(listener, 4) == 0 else {
            Glibc.close(listener)
            throw LoopbackSocketError(operation: "listen")
        }
        BlackholeListener.limitWaits(of: listener)
        Thread { [done] in
            let connection = accept(listener, nil, nil)
            // Only one connection is served, so the listener goes at once: the re-send libcurl
            // makes when the connection closes finds nobody, and no other connection can wait in
            // the backlog to be reset when the listener closes (which reads as a receive failure,
            // not a refused connection).
            Glibc.close(listener)
            if connection >= 0 {
                BlackholeListener.limitWaits(of: connection)
                if BlackholeListener.readRequestHead(from: connection) {
                    let answer = Array("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok".utf8)
                    _ = answer.withUnsafeBytes { send(connection, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                    _ = BlackholeListener.readRequestHead(from: connection)
                }
            }
            if connection >= 0 { Glibc.close(connection) }
            done.signal()
        }.start()
    }

    /// Waits, at most 60 seconds and on a thread of its own, until the connection being served
    /// is closed.
    func waitUntilClosed() async -> Bool {
        await onOwnThread { [done] in done.wait(timeout: .now() + 60) == .success }
    }
}
