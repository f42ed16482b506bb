extension MockBackend {
    /// How a mock backend behaves for a whole run: its seed, its failure scenario and its limits.
    ///
    /// | Setting             | Default     | Why                                                              |
    /// |---------------------|-------------|------------------------------------------------------------------|
    /// | ``seed``            | 1           | any fixed number makes runs repeatable; change it to see other failure sequences |
    /// | ``scenario``        | `.none`     | failures are opted into, per run, per route or per request        |
    /// | ``tokenLifetime``   | 300 s       | long enough that a demo session is not interrupted, short enough that a long one meets an expiry; tests use ``MockBackend/advanceClock(by:)`` instead of waiting |
    /// | ``captchaAfter``    | 3           | a session of a few answers meets one captcha                      |
    /// | ``maxAnswerLength`` | 500         | room for any honest answer; a test can go over it with a short string of repeats |
    /// | ``users``           | ``User/defaults`` | two accounts, so per-user limits can be told apart          |
    /// | ``maxRecords``      | 100,000     | far more tokens, captchas and stored submissions than any session or load test keeps in use; bounds the memory of a backend left running under load |
    public struct Configuration: Sendable, Hashable {
        /// The seed of every random choice: which requests a flaky run fails, tokens, captcha questions.
        ///
        /// The same seed gives the same sequence as long as requests arrive in the same order.
        public var seed: UInt64
        /// The failure pattern of the run.
        public var scenario: MockScenario
        /// How long an access token lives (the scenario `expiring-tokens` overrides it).
        ///
        /// `expiresIn` in the login response is this, in whole seconds rounded up.
        public var tokenLifetime: Duration
        /// How many answers a user may submit before the next one needs a captcha; `0` turns captchas off.
        public var captchaAfter: Int
        /// The most characters an answer may have; a longer one is `validation_failure`/`too_long`.
        public var maxAnswerLength: Int
        /// The accounts that can log in.
        public var users: [User]
        /// The most access tokens, refresh tokens and captchas the backend keeps, and the most
        /// stored submissions per account; at least 2. Adding one more forgets the older half of
        /// its kind: a forgotten token is refused as unknown (401 `unauthorized` for an access
        /// token, `invalid_token` for a refresh token), a forgotten captcha is issued anew, a
        /// forgotten submission is applied again if it is repeated.
        public var maxRecords: Int

        /// Creates a configuration; every parameter has the default the table above gives.
        public init(
            seed: UInt64 = 1,
            scenario: MockScenario = .none,
            tokenLifetime: Duration = .seconds(300),
            captchaAfter: Int = 3,
            maxAnswerLength: Int = 500,
            users: [User] = User.defaults,
            maxRecords: Int = 100_000
        ) {
            self.seed = seed
            self.scenario = scenario
            self.tokenLifetime = tokenLifetime
            self.captchaAfter = captchaAfter
            self.maxAnswerLength = maxAnswerLength
            self.users = users
            self.maxRecords = max(2, maxRecords)
        }
    }
}
