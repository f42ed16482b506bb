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
///
/// The auth handler reads an ``InMemoryCredentialStore`` without an asynchronous call; with
/// `PIPELINE_STORE=app` in the environment it reads a store of the app's own instead
/// (``AppCredentialStore``), so its `prepare` is an asynchronous hook, which the pipeline races
/// against the call's deadline. With `PIPELINE_HANDLERS=overload` a circuit breaker and an adaptive
/// rate limiter go before the three, with their defaults, as docs/resilience.md orders them: what
/// overload protection costs a call that succeeds.
struct PipelineClient: BenchmarkClient {
    /// Which credential store the auth handler reads.
    enum Store: String {
        /// ``InMemoryCredentialStore``: the auth handler prepares without an asynchronous call.
        case memory
        /// ``AppCredentialStore``: the auth handler's `prepare` is an asynchronous hook.
        case app

        /// `PIPELINE_STORE` from the environment; `memory` without it.
        static var fromEnvironment: Store? {
            guard let name = ProcessInfo.processInfo.environment["PIPELINE_STORE"] else { return .memory }
            return Store(rawValue: name)
        }
    }

    /// `PIPELINE_HANDLERS` from the environment: whether the breaker and the limiter go first.
    static var withOverloadProtection: Bool {
        ProcessInfo.processInfo.environment["PIPELINE_HANDLERS"] == "overload"
    }

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
    ///   - store: The credential store the auth handler reads.
    init(url: URL, transport: CurlTransport = CurlTransport(), store: Store = .memory) throws {
        self.transport = transport
        let components = URLComponents(url: url, resolvingAgainstBaseURL: false)
        let base = "\(url.scheme ?? "http")://\(components?.host ?? "")" + (components?.port.map { ":\($0)" } ?? "")
        let path = (components?.percentEncodedPath ?? "/") + (components?.percentEncodedQuery.map { "?\($0)" } ?? "")
        let memory = InMemoryCredentialStore(Credential(accessToken: Self.accessToken))
        let credentials: any CredentialStore =
            switch store {
            case .memory: memory
            case .app: AppCredentialStore(cache: memory)
            }
        let overloadProtection: [any RecoverableErrorHandler] =
            Self.withOverloadProtection ? [CircuitBreakerHandler(), AdaptiveRateLimitHandler()] : []
        api = try APIDataManager(
            baseURL: base,
            transport: transport,
            handlers: overloadProtection + [
                BackendTemporaryErrorHandler(),
                AuthRefreshHandler(store: credentials) { _ in Credential(accessToken: "refreshed") },
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

/// A credential store of an app's own, as one over the keychain with a cache in memory would be:
/// it answers from the cache without suspending, but the auth handler cannot know that and calls
/// it asynchronously.
struct AppCredentialStore: CredentialStore {
    let cache: InMemoryCredentialStore

    func current() async -> Credential? {
        await cache.current()
    }

    func replace(with credential: Credential) async -> Credential {
        await cache.replace(with: credential)
    }

    func clear() async {
        await cache.clear()
    }
}
