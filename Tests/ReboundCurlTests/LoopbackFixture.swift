import Foundation
import HTTPTypes
import Rebound
import ReboundCurl
import ReboundMockBackend

/// Starts a loopback server and a transport for one test, and stops both afterwards.
func withLoopback<T>(
    routes: [LoopbackRoute] = [],
    configuration: CurlTransport.Configuration = CurlTransport.Configuration(),
    _ body: (LoopbackServer, CurlTransport) async throws -> T
) async throws -> T {
    let server = try await LoopbackServer.start(routes: routes + LoopbackRoute.standardTestRoutes)
    let transport = CurlTransport(configuration: configuration)
    do {
        let result = try await body(server, transport)
        transport.shutdown()
        try await server.shutdown()
        return result
    } catch {
        transport.shutdown()
        try await server.shutdown()
        throw error
    }
}

extension LoopbackServer {
    /// A GET request for `target` (path and query) on this server.
    func request(_ target: String) -> HTTPRequest {
        request(.get, target)
    }

    /// A request for `target` (path and query) on this server.
    func request(_ method: HTTPRequest.Method, _ target: String, headers: HTTPFields = [:]) -> HTTPRequest {
        HTTPRequest(method: method, scheme: "http", authority: authority, path: target, headerFields: headers)
    }

    /// Waits until the server has received `count` requests for `path`, for at most 30 seconds.
    func waitForRequests(to path: String, count: Int = 1) async throws {
        for _ in 0..<6000 where requests(to: path) < count {
            try await Task.sleep(for: .milliseconds(5))
        }
    }
}

/// Requests answered with bytes that no HTTP server would send (no status line at all, trailers of
/// any kind, conflicting lengths): a loopback server whose every reply is a raw-bytes fault.
enum RawAnswer {
    /// What a request (a GET unless `method` says otherwise) from a new transport gets when the
    /// server answers exactly `answer` and closes the connection.
    static func result(
        ofRequestAnswered answer: String, method: HTTPRequest.Method = .get,
        options: TransportOptions = TransportOptions()
    ) async throws -> Result<TransportResponse, NetworkError> {
        let server = try await LoopbackServer.start(routes: [])
        server.faults.inject(LoopbackFaultRule(fault: .raw(answer)))
        let transport = CurlTransport()
        let result: Result<TransportResponse, NetworkError>
        do {
            result = .success(try await transport.send(server.request(method, "/"), body: nil, options: options))
        } catch {
            result = .failure(error)
        }
        transport.shutdown()
        try await server.shutdown()
        return result
    }

    /// What a GET from a new transport fails with when the server answers `answer`; `nil` if it
    /// succeeds.
    static func error(ofRequestAnswered answer: String) async throws -> NetworkError? {
        guard case .failure(let error) = try await result(ofRequestAnswered: answer) else { return nil }
        return error
    }
}

/// What `/echo` answers: the request as the server saw it.
struct Echo: Decodable {
    var method: String
    /// The request target as the server saw it: path and query.
    var target: String
    var headers: [[String]]
    var body: String
    var bodyLength: Int

    func values(of name: String) -> [String] {
        headers.filter { $0.first?.lowercased() == name.lowercased() }.compactMap { $0.last }
    }
}
