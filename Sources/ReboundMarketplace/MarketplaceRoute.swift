/// Where a request to the mock backend goes: one of the marketplace's routes, a control route, or nowhere.
enum MarketplaceRoute: Sendable, Hashable {
    // The marketplace.
    case login
    case refreshToken
    case tasks
    case task(id: Substring)
    case answers(taskID: Substring)
    case profile
    case verifyCaptcha
    // Control routes, for tests and scripts; never failed, never counted.
    case stats
    case resetStats
    case showScenario
    case addToScenario
    case clearScenario
    case reset
    case advanceClock
    // Errors.
    /// The path exists, but not for this method; the methods it allows.
    case methodNotAllowed(allowed: [String])
    case unknown

    /// The route of `method` (`HEAD` counts as `GET`) and `path`.
    init(method: String, path: String) {
        let method = method == "HEAD" ? "GET" : method
        let segments = path.split(separator: "/")
        guard segments.first == "v1" else {
            self = .unknown
            return
        }
        let routes: [String: MarketplaceRoute]
        switch segments.dropFirst() {
        case ["login"]: routes = ["POST": .login]
        case ["token", "refresh"]: routes = ["POST": .refreshToken]
        case ["tasks"]: routes = ["GET": .tasks]
        case let rest where rest.count == 2 && rest.first == "tasks":
            routes = ["GET": .task(id: rest[rest.startIndex + 1])]
        case let rest where rest.count == 3 && rest.first == "tasks" && rest.last == "answers":
            routes = ["POST": .answers(taskID: rest[rest.startIndex + 1])]
        case ["profile"]: routes = ["GET": .profile]
        case ["captcha", "verify"]: routes = ["POST": .verifyCaptcha]
        case ["stats"]: routes = ["GET": .stats]
        case ["stats", "reset"]: routes = ["POST": .resetStats]
        case ["scenario"]: routes = ["GET": .showScenario, "POST": .addToScenario, "DELETE": .clearScenario]
        case ["reset"]: routes = ["POST": .reset]
        case ["clock", "advance"]: routes = ["POST": .advanceClock]
        default: routes = [:]
        }
        if let route = routes[method] {
            self = route
        } else if routes.isEmpty {
            self = .unknown
        } else {
            self = .methodNotAllowed(allowed: routes.keys.sorted())
        }
    }

    /// Whether the route is for tests and scripts rather than for the app.
    ///
    /// Such routes are exempt from injected failures and not counted in the stats.
    var isControl: Bool {
        switch self {
        case .stats, .resetStats, .showScenario, .addToScenario, .clearScenario, .reset, .advanceClock: true
        default: false
        }
    }

    /// The route's template, such as `/v1/tasks/{id}`.
    ///
    /// It is the key (after the method) of the route's count in the stats; `nil` for a request to no
    /// route, which is counted under its actual path.
    var template: String? {
        switch self {
        case .login: "/v1/login"
        case .refreshToken: "/v1/token/refresh"
        case .tasks: "/v1/tasks"
        case .task: "/v1/tasks/{id}"
        case .answers: "/v1/tasks/{id}/answers"
        case .profile: "/v1/profile"
        case .verifyCaptcha: "/v1/captcha/verify"
        case .stats: "/v1/stats"
        case .resetStats: "/v1/stats/reset"
        case .showScenario, .addToScenario, .clearScenario: "/v1/scenario"
        case .reset: "/v1/reset"
        case .advanceClock: "/v1/clock/advance"
        case .methodNotAllowed, .unknown: nil
        }
    }
}
