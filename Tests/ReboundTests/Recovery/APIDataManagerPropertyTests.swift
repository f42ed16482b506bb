import Foundation
import HTTPTypes
import PropertyBased
import Rebound
import ReboundTesting
import Testing

/// Property tests of the pipeline with the backend-temporary handler over random failure scripts.
@Suite struct APIDataManagerPropertyTests {
    /// One scripted answer: a status (0 for a network timeout), and a Retry-After in seconds (or none).
    struct Answer: Sendable, CustomStringConvertible {
        var status: Int
        var retryAfter: Int?

        var step: ScriptedTransport.Step {
            if status == 0 { return .fail(NetworkError(.timeout)) }
            if status == 200 { return .tasks }
            var fields = HTTPFields()
            if let retryAfter { fields[.retryAfter] = "\(retryAfter)" }
            return .respond(status: HTTPResponse.Status(code: status), headers: fields)
        }

        var description: String { "\(status)" + (retryAfter.map { "/\($0)s" } ?? "") }
    }

    static let statuses = [0, 200, 404, 429, 500, 502, 503, 504]
    static let answers = Gen.int(in: 0...7)
        .map { Answer(status: statuses[$0], retryAfter: nil) }
        .array(of: 1...12)
    static let retryAfters = Gen.int(in: 0...40).array(of: 12)
    static let limits = Gen.int(in: 1...8)
    static let deadlines = Gen.int(in: 1...60)
    static let seeds = Gen.int(in: 0...Int(Int32.max))
    static let jitters = Gen<Jitter>.case

    struct Run {
        var requests: Int
        var sleeps: [Duration]
        var error: APIError?
    }

    static func run(
        _ answers: [Answer],
        retryAfters: [Int],
        maxAttempts: Int,
        deadline: Int,
        jitter: Jitter,
        seed: Int,
        endpoint: Endpoint<[TaskItem], APIErrorCode> = SampleEndpoints.listTasks
    ) async throws -> Run {
        // Every third 429/503 carries a Retry-After.
        let script = answers.enumerated().map { index, answer in
            var answer = answer
            if (answer.status == 429 || answer.status == 503) && index % 3 == 0 {
                answer.retryAfter = retryAfters[index]
            }
            return answer.step
        }
        let clock = TestClock()
        let transport = ScriptedTransport(script + Array(repeating: .tasks, count: 20))
        let handler = BackendTemporaryErrorHandler(
            configuration: .init(
                backoff: Backoff(base: .milliseconds(300), multiplier: 2, cap: .seconds(8), jitter: jitter)),
            random: SeededRandom(seed: UInt64(seed))
        )
        let api = try makeManager(
            transport,
            handlers: [handler],
            limits: RequestLimits(maxAttempts: maxAttempts, deadline: .seconds(deadline)),
            clock: clock
        )
        var failure: APIError?
        do { _ = try await api.send(endpoint) } catch { failure = error }
        return Run(requests: transport.requests.count, sleeps: clock.sleeps, error: failure)
    }

    @Test func attemptsNeverExceedTheMaximumAndWaitsNeverTheDeadline() async throws {
        await propertyCheck(
            input: Self.answers, Self.retryAfters, Self.limits, Self.deadlines, Self.jitters, Self.seeds
        ) {
            answers, retryAfters, maxAttempts, deadline, jitter, seed in
            let run = try await Self.run(
                answers, retryAfters: retryAfters, maxAttempts: maxAttempts, deadline: deadline, jitter: jitter,
                seed: seed)
            #expect(run.requests <= maxAttempts)
            #expect(run.requests >= 1)
            #expect(run.sleeps.reduce(.zero, +) <= .seconds(deadline))
            // A zero wait (Retry-After: 0, a full-jitter draw of 0) is no sleep at all.
            #expect(run.sleeps.count <= run.requests - 1)
            if let history = run.error?.attachment(AttemptHistory.self) {
                #expect(history.attempts.count == run.requests)
            }
        }
    }

    @Test func theSameSeedGivesTheSameSchedule() async throws {
        await propertyCheck(input: Self.answers, Self.retryAfters, Self.jitters, Self.seeds) {
            answers, retryAfters, jitter, seed in
            let first = try await Self.run(
                answers, retryAfters: retryAfters, maxAttempts: 8, deadline: 60, jitter: jitter, seed: seed)
            let second = try await Self.run(
                answers, retryAfters: retryAfters, maxAttempts: 8, deadline: 60, jitter: jitter, seed: seed)
            #expect(first.sleeps == second.sleeps)
            #expect(first.requests == second.requests)
            #expect(first.error?.chain.short == second.error?.chain.short)
        }
    }

    @Test func aNonIdempotentRequestWithoutAKeyIsNeverRetried() async throws {
        await propertyCheck(input: Self.answers, Self.retryAfters, Self.seeds) { answers, retryAfters, seed in
            let post = Endpoint<[TaskItem], APIErrorCode>(
                .post, "/tasks", body: Data("{}".utf8), errorCode: .listTasksFailed)
            let run = try await Self.run(
                answers, retryAfters: retryAfters, maxAttempts: 8, deadline: 60, jitter: .full, seed: seed,
                endpoint: post)
            #expect(run.requests == 1)
            #expect(run.sleeps.isEmpty)
        }
    }

    @Test func retryAfterIsHonouredExactlyWhenItFitsTheLimits() async throws {
        await propertyCheck(input: Gen.int(in: 0...120), Gen.int(in: 1...90)) { requested, deadline in
            let clock = TestClock()
            var fields = HTTPFields()
            fields[.retryAfter] = "\(requested)"
            let transport = ScriptedTransport([.respond(status: .serviceUnavailable, headers: fields), .tasks])
            let api = try makeManager(
                transport, handlers: [temporaryHandler()], limits: RequestLimits(deadline: .seconds(deadline)),
                clock: clock)
            let succeeded = (try? await api.send(SampleEndpoints.listTasks)) != nil
            let honoured = min(requested, 60)  // RetryAfterPolicy's default maximum
            if honoured < deadline {
                #expect(succeeded)
                #expect(clock.sleeps == (honoured == 0 ? [] : [.seconds(honoured)]))
            } else {
                #expect(!succeeded)
                #expect(clock.sleeps.isEmpty)
            }
        }
    }

    /// Counts each attempt's outcomes, by attempt id.
    final class OutcomeCounter: RecoverableErrorHandler, Sendable {
        private let state = Locked<(prepared: [AttemptID], ended: [AttemptID: Int])>(([], [:]))

        func recover(from failure: FailedAttempt) async throws -> RecoveryDecision { .cannotHandle }

        func prepare(_ request: inout HTTPRequest, context: AttemptContext) async throws {
            state.withLock { $0.prepared.append(context.id) }
        }

        func attemptDidEnd(_ outcome: AttemptOutcome, context: AttemptContext) async {
            state.withLock { $0.ended[context.id, default: 0] += 1 }
        }

        var prepared: [AttemptID] { state.withLock { $0.prepared } }
        var ended: [AttemptID: Int] { state.withLock { $0.ended } }
    }

    @Test func eachAttemptHasOneRecordAndOneOutcomeAndTheBudgetIsChargedOncePerRetryableFailure() async throws {
        await propertyCheck(input: Self.answers, Self.limits, Self.deadlines, Self.seeds) {
            answers, maxAttempts, deadline, seed in
            let counter = OutcomeCounter()
            let budget = RetryBudget(maxTokens: 1000, tokenRatio: 0.5)
            let transport = ScriptedTransport(answers.map(\.step) + Array(repeating: .tasks, count: 20))
            let api = try makeManager(
                transport,
                handlers: [counter, temporaryHandler(jitter: .full, budget: budget, seed: UInt64(seed))],
                limits: RequestLimits(maxAttempts: maxAttempts, deadline: .seconds(deadline))
            )
            var history: [AttemptRecord] = []
            var failure: APIError?
            do throws(APIError) {
                history = try await api.response(for: SampleEndpoints.listTasks).history.attempts
            } catch {
                failure = error
                history = error.attachment(AttemptHistory.self)?.attempts ?? []
            }
            let sent = transport.requests.count
            #expect(sent <= maxAttempts)
            #expect(history.count == sent)
            #expect(history.map(\.number) == Array(1...max(1, sent)).prefix(sent).map { $0 })
            // Exactly one outcome for every prepared attempt.
            #expect(counter.prepared.count == sent)
            #expect(counter.ended == Dictionary(uniqueKeysWithValues: counter.prepared.map { ($0, 1) }))
            // The final chain's root is the last attempt's failure.
            if let failure, let last = history.last?.chain {
                #expect(failure.chain.links.last == last.links.last)
            }
            // The budget heard every retryable failure once, and every success.
            var tokens = 1000.0
            for answer in answers.prefix(sent) {
                if answer.status == 200 {
                    tokens = min(1000, tokens + 0.5)
                } else if [0, 429, 502, 503, 504].contains(answer.status) {
                    tokens = max(0, tokens - 1)
                }
            }
            if sent > answers.count { tokens = min(1000, tokens + 0.5) }
            #expect(budget.tokens == tokens)
        }
    }
}
