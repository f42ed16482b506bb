import Foundation
import Glibc
import HTTPTypes
import Rebound
import ReboundCurl
import TestSupport

/// A loopback server that answers every request with the same bytes, whatever they are, and then
/// closes the connection: for answers that no HTTP server would send (no status line at all,
/// trailers of any kind).
///
/// Connections are served one after another on a thread of its own; ``stop()`` ends it.
final class RawReplyServer: Sendable {
    let port: Int
    private let listener: Int32
    private let stopped = DispatchSemaphore(value: 0)

    init(reply: [UInt8]) throws {
        let listener = try BlackholeListener.boundSocket()
        guard listen(listener, 16) == 0, let port = try? BlackholeListener.port(of: listener) else {
            Glibc.close(listener)
            throw BlackholeListener.SocketError(operation: "listen")
        }
        (self.listener, self.port) = (listener, port)
        Thread { [stopped] in
            while true {
                let connection = accept(listener, nil, nil)
                guard connection >= 0 else { break }
                BlackholeListener.limitWaits(of: connection)
                if BlackholeListener.readRequestHead(from: connection) {
                    _ = reply.withUnsafeBytes { send(connection, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                }
                Glibc.close(connection)
            }
            stopped.signal()
        }.start()
    }

    /// Stops accepting connections and waits, on a thread of its own, for the server's thread to end.
    func stop() async {
        // Shutting the listener down wakes the thread from `accept`.
        Glibc.shutdown(listener, Int32(SHUT_RDWR))
        await onOwnThread { [stopped] in _ = stopped.wait(timeout: .now() + 60) }
        Glibc.close(listener)
    }

    /// The server's address, for a request's authority.
    var authority: String { "127.0.0.1:\(port)" }
}

extension RawReplyServer {
    /// What a request (a GET unless `method` says otherwise) from a new transport gets when the
    /// server answers `answer`.
    static func result(
        ofRequestAnswered answer: String, method: HTTPRequest.Method = .get,
        options: TransportOptions = TransportOptions()
    ) async throws -> Result<TransportResponse, NetworkError> {
        let server = try RawReplyServer(reply: Array(answer.utf8))
        let transport = CurlTransport()
        let request = HTTPRequest(method: method, scheme: "http", authority: server.authority, path: "/")
        let result: Result<TransportResponse, NetworkError>
        do {
            result = .success(try await transport.send(request, body: nil, options: options))
        } catch {
            result = .failure(error)
        }
        transport.shutdown()
        await server.stop()
        return result
    }

    /// What a GET from a new transport fails with when the server answers `answer`; `nil` if it
    /// succeeds.
    static func error(ofRequestAnswered answer: String) async throws -> NetworkError? {
        guard case .failure(let error) = try await result(ofRequestAnswered: answer) else { return nil }
        return error
    }
}
