import ReboundMockBackend

/// What the mock backend has seen since it started or its stats were last reset.
///
/// Tests read it in process (``MockBackend/stats``) or over HTTP (`GET /v1/stats`, the same fields as
/// JSON) to check what reached the server, not just what the client reported: that a retried
/// submission was applied once, that a refresh happened once for many requests. Requests to the
/// control routes (`/v1/stats`, `/v1/scenario`, `/v1/reset`, `/v1/clock/advance`) are not counted.
public struct MockBackendStats: Sendable, Hashable, Codable {
    /// Requests per route, keyed by method and route template, such as `"GET /v1/tasks/{id}"`.
    ///
    /// Every request counts, whether it succeeded, failed or had a failure injected. A request to no
    /// route counts under its method and actual path.
    public var requestsPerRoute: [String: Int]
    /// Successful logins.
    public var logins: Int
    /// Successful token refreshes.
    public var refreshes: Int
    /// Captcha challenges created (a challenge sent again while pending counts once).
    public var captchasIssued: Int
    /// Captcha challenges answered correctly.
    public var captchasSolved: Int
    /// Answer submissions that repeated an `Idempotency-Key` and got the first result back.
    public var duplicateSubmissions: Int
    /// Answers stored: each changed a task's answers and the user's balance.
    public var answersApplied: Int
    /// Injected failures per kind (``MockFailure/kind``), such as `"temporary": 2`.
    public var failuresInjected: [String: Int]
    /// Requests counted in no entry of ``requestsPerRoute``, because it already held
    /// ``LoopbackServer/Limits/maxTrackedPaths`` routes when they arrived, or because their route
    /// (method, space and path) is longer than ``LoopbackServer/Limits/maximumTrackedPathLength`` bytes.
    ///
    /// A client that sends endless distinct paths, or very long ones (each a route of its own, as
    /// requests to no route are counted under their actual path), would otherwise grow the stats without
    /// end.
    public var requestsToUntrackedRoutes: Int

    /// Creates stats; all zero by default.
    public init(
        requestsPerRoute: [String: Int] = [:],
        logins: Int = 0,
        refreshes: Int = 0,
        captchasIssued: Int = 0,
        captchasSolved: Int = 0,
        duplicateSubmissions: Int = 0,
        answersApplied: Int = 0,
        failuresInjected: [String: Int] = [:],
        requestsToUntrackedRoutes: Int = 0
    ) {
        self.requestsPerRoute = requestsPerRoute
        self.logins = logins
        self.refreshes = refreshes
        self.captchasIssued = captchasIssued
        self.captchasSolved = captchasSolved
        self.duplicateSubmissions = duplicateSubmissions
        self.answersApplied = answersApplied
        self.failuresInjected = failuresInjected
        self.requestsToUntrackedRoutes = requestsToUntrackedRoutes
    }

    /// How many requests were counted on all routes together, untracked ones included.
    public var totalRequests: Int {
        requestsPerRoute.values.reduce(requestsToUntrackedRoutes, +)
    }

    /// How many failures were injected, of all kinds together.
    public var totalFailuresInjected: Int {
        failuresInjected.values.reduce(0, +)
    }

    /// How many requests were counted for `route`, such as `requests(to: "GET /v1/tasks")`; 0 for a
    /// route beyond the tracked ones (see ``requestsToUntrackedRoutes``).
    public func requests(to route: String) -> Int {
        requestsPerRoute[route, default: 0]
    }
}

extension MockBackendStats {
    /// Counts a request to `route` in ``requestsPerRoute`` if it is tracked or there is room for it
    /// (and it is not too long to be), or else in ``requestsToUntrackedRoutes``.
    mutating func countRequest(to route: String, maxTrackedRoutes: Int) {
        if route.utf8.count > LoopbackServer.Limits.maximumTrackedPathLength {
            requestsToUntrackedRoutes += 1
        } else if let count = requestsPerRoute[route] {
            requestsPerRoute[route] = count + 1
        } else if requestsPerRoute.count < maxTrackedRoutes {
            requestsPerRoute[route] = 1
        } else {
            requestsToUntrackedRoutes += 1
        }
    }
}
