public import ReboundMockBackend

/// A task-marketplace API on a real loopback HTTP server, with failures on demand.
///
/// It stands in for the backend of a crowdsourcing app: workers log in, list tasks, submit answers
/// for small rewards, solve a captcha now and then. Every failure a client must survive can be
/// injected, deterministically: for a whole run (``MockScenario``), for the next requests to a route
/// (``MockFailureRule``), or for one request (the `X-Mock-Failure` header). ``stats`` tells a test
/// what reached the server.
///
/// ```swift
/// let backend = try await MockBackend.start(configuration: .init(seed: 7, captchaAfter: 2))
/// backend.script(MockFailureRule("GET", "/v1/tasks", failure: .temporary(status: 503), trigger: .times(2)))
/// // … point the client under test at backend.baseURL …
/// #expect(backend.stats.failuresInjected["temporary"] == 2)
/// try await backend.shutdown()
/// ```
///
/// The routes, all JSON, all under `/v1` (the ones marked 🔒 need `Authorization: Bearer <token>`):
///
/// | Route                          | Answer                                                         |
/// |--------------------------------|----------------------------------------------------------------|
/// | `POST /v1/login`               | `{"accessToken", "refreshToken", "expiresIn", "tokenType"}`     |
/// | `POST /v1/token/refresh`       | a new pair; the refresh token works once                       |
/// | `GET /v1/tasks` 🔒             | the seven seeded tasks                                          |
/// | `GET /v1/tasks/{id}` 🔒        | one task                                                        |
/// | `POST /v1/tasks/{id}/answers` 🔒 | 201 `{"answerId", "taskId", "accepted"}`; honours `Idempotency-Key` |
/// | `GET /v1/profile` 🔒           | `{"id", "username", "balance", "answers"}`                      |
/// | `POST /v1/captcha/verify` 🔒   | 204 when the answer is right                                    |
/// | `GET /v1/stats`, `POST /v1/stats/reset` | ``MockBackendStats``                                  |
/// | `GET`, `POST`, `DELETE /v1/scenario` | the failure script                                       |
/// | `POST /v1/reset`, `POST /v1/clock/advance` | back to the start; move the clock                  |
///
/// Every error has one shape, `{"code", "reason"?, "message", "field"?}` (``MockErrorCode``,
/// ``MockErrorReason``). `docs/mock-backend.md` describes the API in full.
public final class MockBackend: Sendable {
    /// The header that injects a failure into one request: `X-Mock-Failure: temporary-503`.
    ///
    /// Its values are the spellings of ``MockFailure`` (see ``MockFailure/init(_:)``), or `none` to
    /// exempt the request from the scenario and the rules. An unreadable value gets 422
    /// `validation_failure` with `field` naming the header.
    public static let failureHeaderName = "X-Mock-Failure"

    /// The configuration the backend started with.
    public let configuration: Configuration
    /// The server the API runs on.
    public let server: LoopbackServer
    private let marketplace: Marketplace

    private init(configuration: Configuration, server: LoopbackServer, marketplace: Marketplace) {
        self.configuration = configuration
        self.server = server
        self.marketplace = marketplace
    }

    /// Starts a backend listening on `host` and `port`.
    ///
    /// - Parameters:
    ///   - configuration: The seed, scenario and limits of the run.
    ///   - host: The address to listen on; `127.0.0.1` by default, unreachable from other machines.
    ///   - port: The port, from 0 to 65535; `0`, the default, lets the system pick a free one, so tests
    ///     run in parallel.
    ///   - limits: How much the server takes from a client before refusing it; see
    ///     ``LoopbackServer/Limits``.
    ///   - additionalRoutes: Routes served beside the API, asked before it, such as
    ///     ``LoopbackRoute/standardTestRoutes``.
    ///   - log: Called with one line per request (method, target, outcome, injected failure), from the
    ///     server's tasks; `nil`, the default, logs nothing.
    /// - Returns: The running backend.
    /// - Throws: ``LoopbackServer/ConfigurationError`` for a port outside 0–65535 or a limit below its
    ///   minimum; an error from SwiftNIO if the server cannot listen, for example because the port is
    ///   taken.
    public static func start(
        configuration: Configuration = Configuration(),
        host: String = "127.0.0.1",
        port: Int = 0,
        limits: LoopbackServer.Limits = .default,
        additionalRoutes: [LoopbackRoute] = [],
        log: (@Sendable (String) -> Void)? = nil
    ) async throws -> MockBackend {
        let marketplace = Marketplace(configuration: configuration, maxTrackedRoutes: limits.maxTrackedPaths, log: log)
        let route = LoopbackRoute(pathPrefix: "/v1") { request in
            await marketplace.handle(request)
        }
        let server = try await LoopbackServer.start(
            host: host,
            port: port,
            limits: limits,
            routes: additionalRoutes + [route]
        )
        return MockBackend(configuration: configuration, server: server, marketplace: marketplace)
    }

    /// Stops listening and closes every connection, stalled ones included. Calling it again does nothing.
    public func shutdown() async throws {
        try await server.shutdown()
    }

    // MARK: - Where it listens

    /// The host the backend listens on.
    public var host: String { server.host }
    /// The port the backend listens on.
    public var port: Int { server.port }
    /// The host and port, such as `"127.0.0.1:8080"`.
    public var authority: String { server.authority }
    /// The URL of the server's root without a trailing slash, such as `"http://127.0.0.1:8080"`.
    public var baseURL: String { server.baseURL }

    /// The URL of `pathAndQuery` on this backend, such as `url("/v1/tasks")`.
    public func url(_ pathAndQuery: String) -> String {
        server.url(pathAndQuery)
    }

    // MARK: - What it saw

    /// What the backend has seen since it started or ``resetStats()``; `GET /v1/stats` sends the same.
    public var stats: MockBackendStats {
        marketplace.withState { $0.stats }
    }

    /// Sets every count in ``stats`` back to zero; the marketplace's state stays as it is.
    public func resetStats() {
        marketplace.withState { $0.stats = MockBackendStats() }
    }

    // MARK: - Failures

    /// The failure pattern of the run; setting it restarts its count (for `outage` and `rate-limited`).
    ///
    /// Starts as ``Configuration/scenario``. It returns the scenario as it was set, even one whose
    /// parameter is out of the range `POST /v1/scenario` takes; `GET /v1/scenario` shows such a one as
    /// the scenario that behaves the same (see ``MockScenario/description``).
    public var scenario: MockScenario {
        get { marketplace.withState { $0.failurePlan.scenario } }
        set { marketplace.withState { $0.failurePlan.scenario = newValue } }
    }

    /// Adds rules after those in force; the first matching rule that fires decides a request's failure.
    ///
    /// A rule with `.times(0)` or fewer is used up and dropped. A trigger out of range is kept as the
    /// trigger that behaves the same (a probability clamped to 0…1, NaN as 0), so that ``scriptedRules``
    /// and `GET /v1/scenario` show every rule in a form that `POST /v1/scenario` reads back.
    public func script(_ rules: [MockFailureRule]) {
        marketplace.withState { $0.failurePlan.add(rules) }
    }

    /// Adds rules after those in force, written out one by one; the same as passing them as an array.
    public func script(_ rules: MockFailureRule...) {
        script(rules)
    }

    /// The rules still in force, with the counts they have left.
    public var scriptedRules: [MockFailureRule] {
        marketplace.withState { $0.failurePlan.rules }
    }

    /// Removes every rule; the scenario stays.
    public func clearScript() {
        marketplace.withState { $0.failurePlan.removeAllRules() }
    }

    // MARK: - Time and state

    /// Moves the backend's clock ahead by `duration`, so that access tokens expire without waiting.
    ///
    /// Only token lifetimes read this clock. `Retry-After` dates are on the wall clock, since the
    /// client compares them with its own.
    public func advanceClock(by duration: Duration) {
        marketplace.withState { $0.clockOffset += max(duration, .zero) }
    }

    /// Puts everything back as it was at start.
    ///
    /// Accounts, tokens, answers, captchas, the scenario of the configuration, no rules, the generator
    /// at its seed, the clock, the stats. After a reset, the same requests get the same answers as after start.
    public func reset() {
        marketplace.reset()
    }
}
