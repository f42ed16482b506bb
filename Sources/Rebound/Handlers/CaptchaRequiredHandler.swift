import HTTPTypes

/// Gets a captcha solved when the backend asks for one, then sends the request again.
///
/// By default it recognises the backend's captcha-required answer by
/// ``BackendErrorCode/captchaRequired`` in the failure's chain, with the challenge that
/// ``JSONBackendErrorParser`` reads into the error (``LayerError/captchaChallenge``); a
/// configuration can also require particular statuses, and a custom matcher can find challenges
/// anywhere else. A failure without a challenge is not this handler's.
///
/// ```
///  captcha required ─► this request met maxChallengesPerRequest captchas already? ─► throw captchaAttemptsExhausted
///        │ no
///        ├─ this challenge was solved already ───────────────────────────────────► retryNow
///        ▼
///  single flight per challenge id ─► solver.solve ─► verifier.verify ─► retryNow
///                                      │ dismissed        │ or either fails
///                                      ▼                  ▼
///                          throw captchaCancelled   throw captchaFailed
/// ```
///
/// **Single flight.** Requests that meet the same challenge (by ``CaptchaChallenge/id``) share one
/// solve and one verification: the person sees one dialog, the backend gets one answer, and every
/// waiter retries, or fails, with its outcome. A request that meets a challenge already solved
/// retries at once. A failed or dismissed challenge is not remembered: the next request that
/// meets it asks the person again, since the person decides anew.
///
/// **What the app sees.** The solver and the verifier get the challenge as the backend sent it; the
/// failure's context, chain and reports get its identifier and question screened (see
/// ``CaptchaChallenge``), since a question may be a signed address.
///
/// ```swift
/// let captcha = CaptchaRequiredHandler(
///     solve: { challenge in try await dialog.ask(challenge.question) },
///     verify: { challenge, answer in try await captchaAPI.verify(id: challenge.id, answer: answer) }
/// )
/// ```
public final class CaptchaRequiredHandler: RecoverableErrorHandler {
    /// Which failures the handler answers and how many captchas one request may meet.
    ///
    /// | setting | default | why |
    /// |---|---|---|
    /// | ``statuses`` | any | the payload's code is what says "captcha"; backends send it with 403, 429, 400 or 401 |
    /// | ``maxChallengesPerRequest`` | 2 | one captcha, and one more for a backend that issues a fresh challenge when the first answer came too late; a third in a row means the answers are not being accepted, and asking the person again would only annoy them |
    /// | ``answerTimeLimit`` | 10 min | long enough for a person to read and answer a captcha at leisure; a dialog left open longer was abandoned, and its challenge (with every request waiting for it) is let go rather than held for good. The challenge then fails as if the solver had thrown ``RecoveryErrorCode/deadlineExceeded`` |
    public struct Configuration: Sendable, Hashable {
        /// The statuses a captcha-required answer may have; `nil` for any.
        public var statuses: Set<Int>?
        /// The most captchas this handler gets solved for one request; 0 turns every captcha into
        /// ``RecoveryErrorCode/captchaAttemptsExhausted`` without asking anyone.
        public var maxChallengesPerRequest: Int
        /// How long the solver may take to get an answer, and then the verifier to submit it; at
        /// least 1 ms. A step still under way then is left behind (its task cancelled) and the
        /// challenge fails with ``RecoveryErrorCode/captchaFailed``, caused by
        /// ``RecoveryErrorCode/deadlineExceeded``.
        public var answerTimeLimit: Duration

        public init(
            statuses: Set<Int>? = nil, maxChallengesPerRequest: Int = 2, answerTimeLimit: Duration = .seconds(600)
        ) {
            self.statuses = statuses
            self.maxChallengesPerRequest = max(0, maxChallengesPerRequest)
            self.answerTimeLimit = max(.milliseconds(1), answerTimeLimit)
        }

        /// The defaults of the table above.
        public static let `default` = Configuration()

        /// Never asks a person: a captcha ends the call with
        /// ``RecoveryErrorCode/captchaAttemptsExhausted`` (background work, where nobody can answer).
        public static let disabled = Configuration(maxChallengesPerRequest: 0)
    }

    /// How many solved challenges the handler remembers.
    ///
    /// A solved challenge is only met again by requests that were under way while it was being
    /// solved, seconds at most; 64 covers any burst of them and keeps the memory of a long-running
    /// app bounded.
    static let rememberedChallenges = 64

    public let configuration: Configuration
    /// Gets the person's answer.
    public let solver: any CaptchaSolver
    /// Submits the answer to the backend.
    public let verifier: any CaptchaVerifier
    private let matcher: @Sendable (FailedAttempt) -> CaptchaChallenge?

    /// How one challenge ended, shared by all its waiters.
    private enum Outcome: Sendable {
        case solved
        case dismissed
        case solveFailed(any Error)
        case verifyFailed(any Error)
    }

    private let flights = SingleFlight<String, Outcome>()

    /// None: this handler only recovers.
    public var hooks: HandlerHooks { [] }
    /// The identifiers of the challenges solved most recently, oldest first.
    private let solved = Locked<[String]>([])

    /// Creates the handler.
    ///
    /// - Parameters:
    ///   - solver: Gets the person's answer.
    ///   - verifier: Submits the answer to the backend.
    ///   - configuration: Which statuses to answer and how many captchas a request may meet.
    ///   - matcher: Finds the challenge in a failure, or returns `nil` for failures that are not
    ///     captcha-required answers; the default is ``challenge(in:)``.
    public init(
        solver: any CaptchaSolver,
        verifier: any CaptchaVerifier,
        configuration: Configuration = Configuration(),
        matcher: @escaping @Sendable (FailedAttempt) -> CaptchaChallenge? = CaptchaRequiredHandler.challenge(in:)
    ) {
        self.solver = solver
        self.verifier = verifier
        self.configuration = configuration
        self.matcher = matcher
    }

    /// Creates the handler with closures that get the answer and submit it.
    ///
    /// - Parameters:
    ///   - configuration: Which statuses to answer and how many captchas a request may meet.
    ///   - matcher: Finds the challenge in a failure; the default is ``challenge(in:)``.
    ///   - solve: Gets the person's answer (see ``CaptchaSolver``).
    ///   - verify: Submits the answer to the backend (see ``CaptchaVerifier``).
    public convenience init(
        configuration: Configuration = Configuration(),
        matcher: @escaping @Sendable (FailedAttempt) -> CaptchaChallenge? = CaptchaRequiredHandler.challenge(in:),
        solve: @escaping @Sendable (CaptchaChallenge) async throws -> String,
        verify: @escaping @Sendable (CaptchaChallenge, _ answer: String) async throws -> Void
    ) {
        self.init(
            solver: ClosureCaptchaSolver(body: solve),
            verifier: ClosureCaptchaVerifier(body: verify),
            configuration: configuration,
            matcher: matcher
        )
    }

    /// The challenge of a ``BackendError`` with ``BackendErrorCode/captchaRequired`` anywhere in the
    /// failure's chain, if it carries one.
    public static func challenge(in failure: FailedAttempt) -> CaptchaChallenge? {
        failure.error.causalChain.lazy
            .compactMap { $0 as? BackendError }
            .first { $0.code == .captchaRequired }?
            .captchaChallenge
    }

    public func recover(from failure: FailedAttempt) async throws -> RecoveryDecision {
        if let statuses = configuration.statuses {
            guard let status = failure.status?.code, statuses.contains(status) else { return .cannotHandle }
        }
        guard let challenge = matcher(failure) else { return .cannotHandle }
        let met = failure.recoveries(by: name)
        guard met < configuration.maxChallengesPerRequest else {
            throw RecoveryError(
                .captchaAttemptsExhausted,
                cause: failure.error,
                reason: "The backend asked for a captcha \(met + 1) times for this request; "
                    + "\(configuration.maxChallengesPerRequest) are allowed."
            )
        }
        if isSolved(challenge.id) { return .retryNow }
        let time = failure.context.time
        let outcome = try await flights.run(challenge.id) { [self] in
            await solveIfStillNeeded(challenge, time: time)
        }
        switch outcome {
        case .solved:
            return .retryNow
        case .dismissed:
            throw RecoveryError(
                .captchaCancelled,
                cause: failure.error,
                reason: "The captcha was dismissed instead of answered."
            )
        case .solveFailed(let error):
            throw RecoveryError(.captchaFailed, cause: error, reason: "Getting an answer to the captcha failed.")
        case .verifyFailed(let error):
            throw RecoveryError(.captchaFailed, cause: error, reason: "The backend did not accept the captcha answer.")
        }
    }

    /// How many recoveries are waiting for the challenge `id` to be solved, for tests and diagnostics.
    package func recoveriesWaiting(forChallenge id: String) -> Int {
        flights.waiterCount(for: id)
    }

    /// The body of a flight: solves and verifies `challenge`, unless a previous flight just did.
    private func solveIfStillNeeded(_ challenge: CaptchaChallenge, time: TimeSource) async -> Outcome {
        // A caller may have checked just before the previous flight for this challenge finished.
        if isSolved(challenge.id) { return .solved }
        let (solver, verifier) = (solver, verifier)
        let answer: String
        do {
            answer = try await withinTimeLimit(time, "No answer to the captcha came") {
                try await solver.solve(challenge)
            }
        } catch is CancellationError {
            return .dismissed
        } catch is CaptchaDismissed {
            return .dismissed
        } catch {
            return .solveFailed(error)
        }
        do {
            try await withinTimeLimit(time, "The backend did not answer the captcha's verification") {
                try await verifier.verify(challenge, answer: answer)
            }
        } catch {
            return .verifyFailed(error)
        }
        solved.withLock { solved in
            solved.append(challenge.id)
            if solved.count > Self.rememberedChallenges { solved.removeFirst(solved.count - Self.rememberedChallenges) }
        }
        return .solved
    }

    /// What `step` returns, or ``RecoveryErrorCode/deadlineExceeded`` when it takes longer than
    /// ``Configuration/answerTimeLimit``.
    private func withinTimeLimit<Value: Sendable>(
        _ time: TimeSource, _ what: String, _ step: @escaping @Sendable () async throws -> Value
    ) async throws -> Value {
        let limit = configuration.answerTimeLimit
        guard let value = try await TimeLimit.run(limit: limit, on: time, step) else {
            throw RecoveryError(.deadlineExceeded, reason: "\(what) within \(limit).")
        }
        return value
    }

    private func isSolved(_ id: String) -> Bool {
        solved.withLock { $0.contains(id) }
    }
}
