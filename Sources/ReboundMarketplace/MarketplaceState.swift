import ReboundMockBackend

/// Everything the marketplace knows.
///
/// Accounts, tokens, tasks, answers, captchas, the failure plan and the stats. It is a value behind one lock in ``Marketplace``: every request changes it in one critical section,
/// so the stats always agree with the state and a duplicate submission can never be applied twice.
/// Its methods are the routes' logic and return complete responses; nothing in it waits.
struct MarketplaceState: Sendable {
    /// One account with its balance and progress.
    struct Account: Sendable {
        var id: Int
        var username: String
        var password: String
        var balanceMillis = 0
        var answers = 0
        /// Answers accepted since the last captcha was solved.
        var answersSinceCaptcha = 0
        /// The challenge the account must solve, once one was issued.
        var pendingCaptchaID: String?
    }

    /// What an access token grants.
    struct AccessGrant: Sendable {
        var accountIndex: Int
        var expiresAt: ContinuousClock.Instant
        /// The token's number, in the order tokens were issued.
        var serial: UInt64
    }

    /// Whose a refresh token is.
    struct RefreshGrant: Sendable {
        var accountIndex: Int
        /// The token's number, in the order tokens were issued.
        var serial: UInt64
    }

    /// A captcha challenge: a sum of two small numbers.
    struct Captcha: Sendable {
        var id: String
        /// The account it was issued to.
        ///
        /// `nil` for one forced on a request without a valid token, which any account may solve.
        var accountIndex: Int?
        var left: Int
        var right: Int
        /// The captcha's number, in the order captchas were issued.
        var serial: UInt64

        var question: String { "What is \(left) + \(right)?" }
    }

    /// A submission stored under its idempotency key, with the response it got.
    struct StoredSubmission: Sendable {
        /// What was submitted, to tell a true repeat from a different request under the same key.
        var fingerprint: String
        var response: APIResponse
        /// The submission's number, in the order answers were applied.
        var serial: UInt64
    }

    let configuration: MockBackend.Configuration
    var accounts: [Account]
    var tasks = MarketplaceTask.seeded
    var accessTokens: [String: AccessGrant] = [:]
    var refreshTokens: [String: RefreshGrant] = [:]
    var tokensIssued: UInt64 = 0
    var nextAnswerID = 1
    /// Submissions by account index and idempotency key.
    var submissions: [Int: [String: StoredSubmission]] = [:]
    var captchas: [String: Captcha] = [:]
    var captchasCreated: UInt64 = 0
    /// How far the backend's clock is ahead of the real one, moved by ``MockBackend/advanceClock(by:)``.
    var clockOffset: Duration = .zero
    var failurePlan: FailurePlan
    var stats = MockBackendStats()

    init(configuration: MockBackend.Configuration) {
        self.configuration = configuration
        accounts = configuration.users.enumerated().map { index, user in
            Account(id: index + 1, username: user.username, password: user.password)
        }
        failurePlan = FailurePlan(scenario: configuration.scenario, seed: configuration.seed)
    }

    /// The backend's current time: the real monotonic clock plus the offset tests advanced it by.
    var now: ContinuousClock.Instant {
        ContinuousClock.now + clockOffset
    }

    /// How long an access token issued now lives.
    var tokenLifetime: Duration {
        if case .expiringTokens(let seconds) = failurePlan.scenario { return .seconds(seconds) }
        return configuration.tokenLifetime
    }

    // MARK: - Authentication

    /// `POST /v1/login`.
    mutating func login(body: [UInt8]) -> APIResponse {
        guard case .object(let fields)? = JSONValue.parse(body) else { return Self.bodyIsNotAnObject }
        guard let username = Self.requiredString("username", in: fields) else {
            return Self.missingOrMalformed("username", in: fields)
        }
        guard let password = Self.requiredString("password", in: fields) else {
            return Self.missingOrMalformed("password", in: fields)
        }
        guard let index = accounts.firstIndex(where: { $0.username == username }),
            accounts[index].password == password
        else {
            return .error(.invalidCredentials, message: "The username or password is wrong.")
        }
        stats.logins += 1
        return issueTokens(for: index)
    }

    /// `POST /v1/token/refresh`: a refresh token works once and is replaced by a new one.
    mutating func refresh(body: [UInt8]) -> APIResponse {
        guard case .object(let fields)? = JSONValue.parse(body) else { return Self.bodyIsNotAnObject }
        guard let token = Self.requiredString("refreshToken", in: fields) else {
            return Self.missingOrMalformed("refreshToken", in: fields)
        }
        guard let index = refreshTokens.removeValue(forKey: token)?.accountIndex else {
            return .error(.invalidToken, message: "The refresh token is unknown or was used already. Log in again.")
        }
        stats.refreshes += 1
        return issueTokens(for: index)
    }

    private struct TokenPair: Encodable {
        var accessToken: String
        var refreshToken: String
        var expiresIn: Int
        var tokenType = "Bearer"
    }

    private mutating func issueTokens(for index: Int) -> APIResponse {
        let lifetime = tokenLifetime
        let access = newToken(prefix: "at")
        let refresh = newToken(prefix: "rt")
        accessTokens.makeRoom(keepingAtMost: configuration.maxRecords, by: \.serial)
        accessTokens[access] = AccessGrant(accountIndex: index, expiresAt: now + lifetime, serial: tokensIssued)
        refreshTokens.makeRoom(keepingAtMost: configuration.maxRecords, by: \.serial)
        refreshTokens[refresh] = RefreshGrant(accountIndex: index, serial: tokensIssued)
        let (seconds, attoseconds) = lifetime.components
        // Rounded up, saturating: a lifetime of Int64.max seconds and a fraction is "never".
        let (roundedUp, overflowed) = Int(seconds).addingReportingOverflow(attoseconds > 0 ? 1 : 0)
        let expiresIn = overflowed ? Int.max : roundedUp
        return .json(TokenPair(accessToken: access, refreshToken: refresh, expiresIn: expiresIn))
    }

    /// A token unique in the run and fixed by the seed: `at-3-5f1c…`.
    private mutating func newToken(prefix: String) -> String {
        tokensIssued += 1
        let random = SplitMix64.derive(seed: configuration.seed, stream: 1, index: tokensIssued)
        return "\(prefix)-\(tokensIssued)-\(String(random, radix: 16))"
    }

    /// The account a request's bearer token belongs to, or the 401 to answer.
    func authenticate(_ request: LoopbackRequest) -> Result<Int, AuthenticationFailure> {
        guard let token = Self.bearerToken(of: request) else {
            return .failure(.init(.error(.unauthorized, message: "Log in first: this route needs an access token.")))
        }
        guard let grant = accessTokens[token] else {
            return .failure(.init(.error(.unauthorized, message: "The access token is unknown. Log in again.")))
        }
        guard now < grant.expiresAt else {
            return .failure(.init(.error(.tokenExpired, message: "The access token expired. Refresh it.")))
        }
        return .success(grant.accountIndex)
    }

    /// The 401 an unauthenticated request gets, as an error so that it fits in a `Result`.
    struct AuthenticationFailure: Error {
        var response: APIResponse
        init(_ response: APIResponse) { self.response = response }
    }

    /// The token in `Authorization: Bearer <token>`; the scheme is case-insensitive, as RFC 9110 says.
    static func bearerToken(of request: LoopbackRequest) -> String? {
        guard let value = request.header("authorization") else { return nil }
        let parts = value.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { return nil }
        let token = parts[1].trimmed(of: " \t")
        return token.isEmpty ? nil : token
    }

    // MARK: - Tasks and the profile

    /// `GET /v1/tasks`.
    func listTasks() -> APIResponse {
        .json(tasks.map(\.payload))
    }

    /// `GET /v1/tasks/{id}`.
    func showTask(_ id: Substring) -> APIResponse {
        guard let index = taskIndex(id) else { return Self.noSuchTask(id) }
        return .json(tasks[index].payload)
    }

    func taskIndex(_ id: Substring) -> Int? {
        guard let number = Int(id) else { return nil }
        return tasks.firstIndex { $0.id == number }
    }

    static func noSuchTask(_ id: Substring) -> APIResponse {
        .error(.notFound, message: "There is no task \(id).")
    }

    private struct Profile: Encodable {
        var id: Int
        var username: String
        var balance: Double
        var answers: Int
    }

    /// `GET /v1/profile`.
    func profile(of index: Int) -> APIResponse {
        let account = accounts[index]
        return .json(
            Profile(
                id: account.id,
                username: account.username,
                balance: Double(account.balanceMillis) / 1000,
                answers: account.answers
            )
        )
    }

    // MARK: - Reading bodies

    static let bodyIsNotAnObject = APIResponse.error(
        .validationFailure,
        status: 400,
        reason: .invalidFormat,
        message: "The body must be a JSON object."
    )

    /// The non-empty string `name` in `fields`, or `nil` if it is absent, empty or not a string.
    static func requiredString(_ name: String, in fields: [String: JSONValue]) -> String? {
        guard case .string(let text)? = fields[name], !text.trimmed(of: " \t\r\n").isEmpty else {
            return nil
        }
        return text
    }

    /// The error for a field ``requiredString(_:in:)`` rejected: `missing_value` or `invalid_format`.
    static func missingOrMalformed(_ name: String, in fields: [String: JSONValue]) -> APIResponse {
        switch fields[name] {
        case nil, .null?, .string?:
            .invalid(name, .missingValue, "\(name) is required.")
        default:
            .invalid(name, .invalidFormat, "\(name) must be a string.")
        }
    }
}

extension StringProtocol {
    /// The text without leading and trailing characters from `characters`.
    func trimmed(of characters: String) -> String {
        let set = Set(characters)
        guard let first = firstIndex(where: { !set.contains($0) }),
            let last = lastIndex(where: { !set.contains($0) })
        else { return "" }
        return String(self[first...last])
    }
}

extension Dictionary {
    /// Forgets the older half of the entries, oldest by `serial`, when there are `limit` of them
    /// already: one more entry then fits, and adding entries one after another costs amortized
    /// constant time.
    mutating func makeRoom(keepingAtMost limit: Int, by serial: (Value) -> UInt64) {
        guard count >= limit else { return }
        let cut = values.map(serial).sorted()[count / 2]
        self = filter { serial($0.value) >= cut }
    }
}
