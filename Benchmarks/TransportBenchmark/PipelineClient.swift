import Foundation
import HTTPTypes
import Rebound
import ReboundCurl

/// Rebound's whole API layer on the success path: the data manager with the three built-in
/// handlers in front of the same libcurl transport as ``ReboundClient``.
///
/// Compared with `rebound`, this measures what recovery costs when nothing fails: every handler's
/// `prepare` (the auth handler reads its store and sets the Authorization field), the response
/// check, the attempt bookkeeping, the handlers' `attemptDidSucceed`, metrics and a span.
struct PipelineClient: BenchmarkClient {
    enum BenchmarkCode: Int, ErrorCode {
        static let domain = "BenchmarkError"
        static let shortName = "BM"
        case fetchFailed = 1
    }

    /// The credential the auth handler sends; `rebound-auth` sends the same.
    static let accessToken = "benchmark-token"

    private let transport: CurlTransport
    private let api: APIDataManager
    private let endpoint: Endpoint<TransportResponse, BenchmarkCode>

    /// - Parameters:
    ///   - url: What to GET.
    ///   - transport: The transport the data manager sends through; a new one by default.
    init(url: URL, transport: CurlTransport = CurlTransport()) throws {
        self.transport = transport
        let components = URLComponents(url: url, resolvingAgainstBaseURL: false)
        let base = "\(url.scheme ?? "http")://\(components?.host ?? "")" + (components?.port.map { ":\($0)" } ?? "")
        let path = (components?.percentEncodedPath ?? "/") + (components?.percentEncodedQuery.map { "?\($0)" } ?? "")
        let store = InMemoryCredentialStore(Credential(accessToken: Self.accessToken))
        api = try APIDataManager(
            baseURL: base,
            transport: transport,
            handlers: [
                BackendTemporaryErrorHandler(),
                AuthRefreshHandler(store: store) { _ in Credential(accessToken: "refreshed") },
                CaptchaRequiredHandler(solve: { _ in "" }, verify: { _, _ in }),
            ]
        )
        endpoint = Endpoint(raw: .get, path, errorCode: .fetchFailed)
    }

    func fetch() async throws -> FetchResult {
        let response = try await api.send(endpoint)
        return FetchResult(status: response.status.code, bodyBytes: response.body.count)
    }

    /// The transport's executor, for `pipeline-loop`.
    var executor: (any TaskExecutor)? { transport.executor }

    func shutdown() async throws {
        transport.shutdown()
    }
}
