import Foundation
import HTTPTypes
import Rebound
import ReboundCurl

/// Rebound's libcurl transport with its default configuration and options, called the way
/// Rebound's own layers call it.
struct ReboundClient: BenchmarkClient {
    private let transport: CurlTransport
    private let request: HTTPRequest
    private let options = TransportOptions()

    /// - Parameters:
    ///   - url: What to GET.
    ///   - accessToken: A bearer token to send in an Authorization field, as the pipeline's auth
    ///     handler does (`rebound-auth`): the same request the pipeline sends, without the pipeline.
    ///   - transport: The transport to send through; a new one by default.
    init(url: URL, accessToken: String? = nil, transport: CurlTransport = CurlTransport()) {
        self.transport = transport
        var request = HTTPRequest(getting: url)
        if let accessToken { request.headerFields[.authorization] = "Bearer \(accessToken)" }
        self.request = request
    }

    func fetch() async throws -> FetchResult {
        let response = try await transport.send(request, body: nil, options: options)
        return FetchResult(status: response.status.code, bodyBytes: response.body.count)
    }

    /// The transport's own executor, for running the benchmark's tasks on its thread.
    var executor: (any TaskExecutor)? { transport.executor }

    func shutdown() async throws {
        transport.shutdown()
    }
}

extension HTTPRequest {
    /// A GET of `url`, built from its parts (the HTTPTypesFoundation initialiser is not a dependency here).
    fileprivate init(getting url: URL) {
        let components = URLComponents(url: url, resolvingAgainstBaseURL: false)
        let name = components?.host ?? ""
        let host = name.contains(":") ? "[\(name)]" : name  // An IPv6 literal keeps its brackets.
        let authority = components?.port.map { "\(host):\($0)" } ?? host
        let path = components?.percentEncodedPath ?? ""
        let query = components?.percentEncodedQuery.map { "?\($0)" } ?? ""
        self.init(method: .get, scheme: url.scheme, authority: authority, path: (path.isEmpty ? "/" : path) + query)
    }
}
