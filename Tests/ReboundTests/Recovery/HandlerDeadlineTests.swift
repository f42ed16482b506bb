import Foundation
import HTTPTypes
import Rebound
import ReboundTesting
import Testing

/// The deadline bounds the time handlers take: a refresh that never answers or a captcha nobody
/// solves ends the call at its deadline, and a hook that hangs is left behind.
///
/// The calls run on a manual `TestClock`: a hook that suspends is raced against the deadline by a
/// timer that sleeps on that clock, and each test moves the clock past the deadline once the
/// expected timers wait (`advance(by:whenSleepersReach:)`), so nothing sleeps in real time. One
/// test keeps the real clock: a deadline the real clock cannot sleep until.
@Suite(.timeLimit(.minutes(2))) struct HandlerDeadlineTests {
    static let deadline = Duration.seconds(5)

    /// Opens a gate after forty-five seconds, so that a pipeline that waits for a stuck handler fails
    /// these tests (the calls come back only once it has fired) instead of hanging them.
    final class Watchdog: Sendable {
        private let didFire = Locked(false)
        private let task: Task<Void, Never>

        init(_ gate: Gate) {
            let didFire = self.didFire
            task = Task {
                guard (try? await Task.sleep(for: .seconds(45))) != nil else { return }
                didFire.withLock { $0 = true }
                gate.open()
            }
        }

        var fired: Bool { didFire.withLock { $0 } }

        deinit { task.cancel() }
    }

    /// A manager on `clock`, or on the real clock when there is none.
    static func manager(
        _ transport: ScriptedTransport,
        handlers: [any RecoverableErrorHandler],
        clock: TestClock? = TestClock(mode: .manual),
        deadline: Duration = deadline
    ) throws -> APIDataManager {
        try APIDataManager(
            baseURL: "https://api.example.com/v1",
            transport: transport,
            handlers: handlers,
            limits: RequestLimits(deadline: deadline),
            time: clock?.timeSource ?? .system
        )
    }

    @Test func aHandlerThatIgnoresCancellationIsLeftBehindAtTheDeadline() async throws {
        let gate = Gate()
        let watchdog = Watchdog(gate)
        let stuck = StuckHandler(gate: gate)
        let transport = ScriptedTransport([.status(.unauthorized), .tasks])
        let clock = TestClock(mode: .manual)
        let api = try Self.manager(transport, handlers: [stuck], clock: clock)

        let call = Task { try await api.send(SampleEndpoints.listTasks) }
        // The handler's recover is raced against the deadline: its timer is the one sleeper.
        try await clock.advance(by: Self.deadline, whenSleepersReach: 1)
        let error = await #expect(throws: APIError.self) { try await call.value }
        #expect(error?.chain.short == "AP8-RE2-HT401")
        #expect(error?.chain.full.contains("RecoveryError.deadlineExceeded") == true)
        #expect(transport.requests.count == 1)
        #expect(!watchdog.fired, "the call waited for the stuck handler")
        #expect(stuck.wasAsked)
        #expect(await eventually { stuck.wasCancelled })
        gate.open()
    }

    @Test func callersOfASharedRefreshLeaveAtTheirDeadlineAndTheRefreshGoesOn() async throws {
        let gate = Gate()
        let watchdog = Watchdog(gate)
        let store = InMemoryCredentialStore(Credential(accessToken: "expired-access"))
        let auth = AuthRefreshHandler(store: store, refresher: GatedRefresher(gate: gate))
        let transport = ScriptedTransport([.status(.unauthorized), .status(.unauthorized)])
        let clock = TestClock(mode: .manual)
        let api = try Self.manager(transport, handlers: [auth], clock: clock)

        @Sendable func failure() async -> String? {
            do {
                _ = try await api.send(SampleEndpoints.listTasks)
                return nil
            } catch {
                return error.chain.short
            }
        }
        async let first = failure()
        async let second = failure()
        // Both wait for the one refresh, each raced against the deadline.
        try await clock.advance(by: Self.deadline, whenSleepersReach: 2)
        #expect(await [first, second] == ["AP8-RE2-HT401", "AP8-RE2-HT401"])
        #expect(!watchdog.fired, "the callers waited for the refresh")

        // The refresh was not cancelled with its callers: once it answers, its credential is kept
        // and the next call sends it.
        gate.open()
        var replaced = false
        for _ in 0..<500 where !replaced {
            replaced = await store.current()?.accessToken == "fresh-access"
            if !replaced { try await Task.sleep(for: .milliseconds(10)) }
        }
        #expect(replaced)
        let next = ScriptedTransport([.tasks])
        _ = try await Self.manager(next, handlers: [auth]).send(SampleEndpoints.listTasks)
        #expect(next.requests.first?.request.headerFields[.authorization] == "Bearer fresh-access")
    }

    // MARK: - The hooks called on every attempt

    @Test func aCredentialStoreThatHangsEndsTheCallAtItsDeadline() async throws {
        let gate = Gate()
        let watchdog = Watchdog(gate)
        let store = HangingCredentialStore(gate: gate)
        let auth = AuthRefreshHandler(store: store, refresher: GatedRefresher(gate: gate))
        let transport = ScriptedTransport([.tasks])
        let clock = TestClock(mode: .manual)
        let api = try Self.manager(transport, handlers: [auth], clock: clock)

        let call = Task { try await api.send(SampleEndpoints.listTasks) }
        try await clock.advance(by: Self.deadline, whenSleepersReach: 1)
        let error = await #expect(throws: APIError.self) { try await call.value }
        #expect(error?.chain.short == "AP8-RE2")
        #expect(
            error?.firstError(in: RecoveryErrorCode.self)?.reason
                == "The deadline passed while AuthRefreshHandler was preparing attempt 1.")
        #expect(transport.requests.isEmpty)
        #expect(!watchdog.fired, "the call waited for the credential store")
        // Left behind, and told so.
        #expect(store.wasAsked)
        #expect(await eventually { store.wasCancelled })
        gate.open()
    }

    @Test func aPrepareThatHangsBeforeARetryEndsTheCallOverTheFailureItWouldHaveRetried() async throws {
        let gate = Gate()
        let watchdog = Watchdog(gate)
        let hooks = HookHandler(gate: gate, hangsInPrepare: 2, yieldsInFirstPrepare: false)
        let transport = ScriptedTransport([.status(.serviceUnavailable), .tasks])
        let clock = TestClock(mode: .manual)
        let api = try Self.manager(transport, handlers: [hooks, RetryingHandler()], clock: clock)

        let start = ContinuousClock.now
        let call = Task { try await api.send(SampleEndpoints.listTasks) }
        try await clock.advance(by: Self.deadline, whenSleepersReach: 1)
        let error = await #expect(throws: APIError.self) { try await call.value }
        #expect(error?.chain.short == "AP8-RE2-HT503", "\(hooks.timeToHang(since: start))")
        #expect(transport.requests.count == 1)
        #expect(!watchdog.fired, "the call waited for prepare; \(hooks.timeToHang(since: start))")
        gate.open()
    }

    @Test func anAttemptDidSucceedThatHangsLeavesTheCallWithItsResponseAtTheDeadline() async throws {
        let gate = Gate()
        let watchdog = Watchdog(gate)
        let hooks = HookHandler(gate: gate, hangsInAttemptDidSucceed: true, yieldsInFirstPrepare: false)
        let transport = ScriptedTransport([.tasks])
        let clock = TestClock(mode: .manual)
        let api = try Self.manager(transport, handlers: [hooks], clock: clock)

        // The attempt succeeded and its response is decoded: the call returns it.
        let start = ContinuousClock.now
        let call = Task { try await api.send(SampleEndpoints.listTasks) }
        try await clock.advance(by: Self.deadline, whenSleepersReach: 1)
        let tasks = try await call.value
        #expect(tasks == [TaskItem(id: 1, title: "Label the picture")])
        #expect(!watchdog.fired, "the call waited for attemptDidSucceed; \(hooks.timeToHang(since: start))")
        #expect(await eventually { hooks.wasCancelled })
        gate.open()
    }

    @Test func hooksThatReturnInTimeWorkAsWithoutADeadline() async throws {
        let hooks = HookHandler(gate: Gate())
        let transport = ScriptedTransport([.status(.serviceUnavailable), .tasks])
        let api = try Self.manager(transport, handlers: [hooks, RetryingHandler()])
        _ = try await api.send(SampleEndpoints.listTasks)
        // Each attempt was prepared (once suspending, once not), and the success observed.
        #expect(transport.requests.map { $0.request.headerFields[HookHandler.field] } == ["1", "2"])
        #expect(hooks.succeeded == ["2"])

        let failing = HookHandler(gate: Gate(), failsInPrepare: true)
        let refused = ScriptedTransport([.tasks])
        let error = await #expect(throws: APIError.self) {
            try await Self.manager(refused, handlers: [failing]).send(SampleEndpoints.listTasks)
        }
        #expect(error?.chain.short == "AP8-RE30-XX0")
        #expect(refused.requests.isEmpty)
    }

    @Test(arguments: [Duration.seconds(Int64.max), .seconds(Int64.max) + .seconds(Int64.max)])
    func aDeadlineBeyondWhatTheClockCanSleepIsNoDeadline(deadline: Duration) async throws {
        // Racing a hook that suspends sleeps for the time left; ContinuousClock traps on a sleep
        // whose end it cannot represent, so such a deadline must behave as "never".
        let hooks = HookHandler(gate: Gate())
        let transport = ScriptedTransport([.status(.serviceUnavailable), .tasks])
        let api = try Self.manager(
            transport, handlers: [hooks, YieldingRetryHandler()], clock: nil, deadline: deadline)
        _ = try await api.send(SampleEndpoints.listTasks)
        #expect(transport.requests.count == 2)
        #expect(hooks.succeeded == ["2"])
    }

    @Test func aHandlerThatDecidesInTimeIsFollowed() async throws {
        let transport = ScriptedTransport([.status(.serviceUnavailable), .tasks])
        let api = try Self.manager(transport, handlers: [RetryingHandler()])
        _ = try await api.send(SampleEndpoints.listTasks)
        #expect(transport.requests.count == 2)
    }
}

/// A wait for a gate that goes on whether cancelled or not, as code that never checks might, and
/// remembers whether it began and whether its task was cancelled meanwhile.
private final class StuckWait: Sendable {
    private let gate: Gate
    private let state = Locked((asked: false, cancelled: false))

    init(gate: Gate) { self.gate = gate }

    var wasAsked: Bool { state.withLock { $0.asked } }
    var wasCancelled: Bool { state.withLock { $0.cancelled } }

    func wait() async {
        state.withLock { $0.asked = true }
        await withTaskCancellationHandler {
            await gate.wait()
        } onCancel: {
            state.withLock { $0.cancelled = true }
        }
    }
}

/// Waits for its gate whether cancelled or not, as a handler that never checks might.
private final class StuckHandler: RecoverableErrorHandler {
    private let stuck: StuckWait

    init(gate: Gate) { stuck = StuckWait(gate: gate) }

    var wasAsked: Bool { stuck.wasAsked }
    var wasCancelled: Bool { stuck.wasCancelled }

    func recover(from failure: FailedAttempt) async throws -> RecoveryDecision {
        await stuck.wait()
        return .retryNow
    }
}

/// Answers with a fresh credential once its gate opens.
private struct GatedRefresher: CredentialRefresher {
    let gate: Gate

    func refresh(_ expired: Credential?) async throws -> Credential {
        await gate.wait()
        return Credential(accessToken: "fresh-access")
    }
}

/// Retries every failure at once.
private struct RetryingHandler: RecoverableErrorHandler {
    func recover(from failure: FailedAttempt) async throws -> RecoveryDecision { .retryNow }
}

/// Retries every failure at once, after suspending (so that its answer is raced).
private struct YieldingRetryHandler: RecoverableErrorHandler {
    func recover(from failure: FailedAttempt) async throws -> RecoveryDecision {
        await Task.yield()
        return .retryNow
    }
}

/// A store whose reading waits for its gate whether cancelled or not, as a keychain that hangs might.
private final class HangingCredentialStore: CredentialStore {
    private let stuck: StuckWait

    init(gate: Gate) { stuck = StuckWait(gate: gate) }

    var wasAsked: Bool { stuck.wasAsked }
    var wasCancelled: Bool { stuck.wasCancelled }

    func current() async -> Credential? {
        await stuck.wait()
        return Credential(accessToken: "late-access")
    }

    func replace(with credential: Credential) async -> Credential { credential }

    func clear() async {}
}

/// A handler with both optional hooks: `prepare` numbers the attempts in a header field (the
/// first time after suspending unless told not to, then without), and may hang from a given attempt on or throw;
/// `attemptDidSucceed` records the number it sees, and may hang. A hook that hangs waits for the
/// gate whether cancelled or not.
private final class HookHandler: RecoverableErrorHandler {
    struct Refused: Error {}

    static let field = HTTPField.Name("X-Attempt")!

    private let stuck: StuckWait
    private let hangsInPrepare: Int?
    private let hangsInAttemptDidSucceed: Bool
    private let failsInPrepare: Bool
    private let yieldsInFirstPrepare: Bool
    private let state = Locked((prepared: 0, succeeded: [String](), hangStarted: ContinuousClock.Instant?.none))

    init(
        gate: Gate, hangsInPrepare: Int? = nil, hangsInAttemptDidSucceed: Bool = false, failsInPrepare: Bool = false,
        yieldsInFirstPrepare: Bool = true
    ) {
        self.yieldsInFirstPrepare = yieldsInFirstPrepare
        stuck = StuckWait(gate: gate)
        self.hangsInPrepare = hangsInPrepare
        self.hangsInAttemptDidSucceed = hangsInAttemptDidSucceed
        self.failsInPrepare = failsInPrepare
    }

    var succeeded: [String] { state.withLock { $0.succeeded } }
    var wasCancelled: Bool { stuck.wasCancelled }

    /// How long after `start` the first hang began, for the tests' failure messages: a call that
    /// ends otherwise than at a hanging hook most likely took that long to get there.
    func timeToHang(since start: ContinuousClock.Instant) -> String {
        state.withLock { $0.hangStarted }.map { "the hook hung \(start.duration(to: $0)) into the call" }
            ?? "no hook hung"
    }

    private func hang() async {
        state.withLock { $0.hangStarted = $0.hangStarted ?? .now }
        await stuck.wait()
    }

    func recover(from failure: FailedAttempt) async throws -> RecoveryDecision { .cannotHandle }

    func prepare(_ request: inout HTTPRequest) async throws {
        if failsInPrepare { throw Refused() }
        let attempt = state.withLock {
            $0.prepared += 1
            return $0.prepared
        }
        if attempt == 1, yieldsInFirstPrepare { await Task.yield() }
        if let hangsInPrepare, attempt >= hangsInPrepare { await hang() }
        request.headerFields[Self.field] = "\(attempt)"
    }

    func attemptDidSucceed(_ request: HTTPRequest) async {
        if hangsInAttemptDidSucceed { await hang() }
        state.withLock { $0.succeeded.append(request.headerFields[Self.field] ?? "") }
    }
}
