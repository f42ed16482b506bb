#if OTel
    import CoreMetrics
    import Foundation
    import HTTPTypes
    import Logging
    import Rebound
    import ReboundCurl
    import ReboundMockBackend
    import Tracing

    /// The calls every export test makes: two that succeed and one that fails after its retries, each
    /// carrying secrets that nothing exported may show, through a circuit breaker and a retrying handler.
    struct Scenario {
        enum Code: Int, ErrorCode {
            static let domain = "ExportTestError"
            static let shortName = "EX"
            case listFailed = 3
            case outageFailed = 4
        }

        /// Values sent with every call (a bearer token, a query value, a cookie) or recorded as
        /// sensitive context: none may appear in any attribute, label or log record.
        static let secrets = [
            "sekret-access-token-5f1c", "sekret-query-value-9a2e", "sekret-cookie-value-77b0",
            "sekret-context-value-3d4f",
        ]
        static let build = BuildIdentity(version: "9.9.9", revision: "export")
        static let maxAttempts = 3

        let backend: LoopbackServer
        let api: APIDataManager
        /// First in the handler list; its circuits stay closed (3 failed attempts are under its minimum).
        let breaker: CircuitBreakerHandler

        /// `GET /tasks` answers; `GET /outage` is always `503`.
        static func start(
            transport: CurlTransport,
            metricsFactory: any MetricsFactory,
            tracer: any Tracer
        ) async throws -> Scenario {
            let backend = try await LoopbackServer.start(routes: [
                LoopbackRoute("GET", "/tasks") { _ in .json("[1,2,3]") },
                LoopbackRoute("GET", "/outage") { _ in .text("down", status: 503) },
            ])
            let breaker = CircuitBreakerHandler(metricsFactory: metricsFactory)
            let api = try APIDataManager(
                baseURL: backend.baseURL,
                transport: transport,
                handlers: [
                    breaker,
                    BackendTemporaryErrorHandler(
                        configuration: .init(
                            backoff: Backoff(
                                base: .milliseconds(5), multiplier: 2, cap: .milliseconds(20), jitter: .full)),
                        random: SeededRandom(seed: 23)),
                    AuthRefreshHandler(store: InMemoryCredentialStore(Credential(accessToken: secrets[0]))) { _ in
                        Credential(accessToken: secrets[0])
                    },
                ],
                limits: RequestLimits(maxAttempts: maxAttempts),
                metricsFactory: metricsFactory,
                tracer: tracer
            )
            return Scenario(backend: backend, api: api, breaker: breaker)
        }

        static func endpoint(_ path: EndpointPath, _ code: Code) -> Endpoint<[Int], Code> {
            .get(
                path, query: ["token": secrets[1]], headerFields: [.cookie: "session=\(secrets[2])"],
                returning: [Int].self, errorCode: code)
        }

        /// Makes the calls, records the failure with `reporter`, and returns its short chain.
        func run(reporter: NonFatalReporter) async throws -> String {
            _ = try await api.send(Self.endpoint("/tasks", .listFailed))
            _ = try await api.send(Self.endpoint("/tasks", .listFailed))
            do {
                _ = try await api.send(Self.endpoint("/outage", .outageFailed))
                throw Unexpected(description: "GET /outage succeeded")
            } catch let error as LayerError<Code> {
                _ = reporter.record(
                    error, context: ["step": "outage", "password": .sensitive(Self.secrets[3])])
                return error.shortChain
            }
        }

        func stop() async throws {
            try await backend.shutdown()
        }

        struct Unexpected: Error, CustomStringConvertible { var description: String }
    }

    /// A swift-log handler that keeps what it is given, for tests of what swift-otel logs.
    struct CapturingLogHandler: LogHandler {
        final class Box: Sendable {
            let lines = Locked<[(message: String, metadata: Logger.Metadata)]>([])
        }

        let box: Box
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            let merged = metadata.merging(event.metadata ?? [:]) { $1 }
            box.lines.withLock { $0.append((event.message.description, merged)) }
        }
    }
#endif
