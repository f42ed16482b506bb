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
