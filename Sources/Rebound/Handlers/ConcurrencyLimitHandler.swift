public import HTTPTypes

/// Keeps at most a number of attempts in flight, and a bounded queue of the others waiting their
/// turn: a bulkhead, so that a burst of calls (or a slow service) cannot take every connection,
/// thread and byte of memory the app has.
///
/// ```
///  prepare ──► a permit is free ──────────────────────────► take it, send
///     │──► none free, room in the queue ──► wait (FIFO) ──► take the permit a finished attempt gives back
///     │                                        └── the task is cancelled, or the deadline passes:
///     │                                            leave the queue at once
///     └──► the queue is full, or no time is left ───────► refused: RecoveryError.concurrencyLimitReached
/// ```
///
/// The limit is per handler, over all its attempts (``Configuration/Scope/all``: give each data
/// manager its own handler for a limit per data manager), or per host
/// (``Configuration/Scope/perHost``). Every attempt counts, retries included, and each gives its
/// permit back in ``attemptDidEndSynchronously(_:context:)`` whichever way it ended (refused by a
/// later handler, cancelled or abandoned included). A waiting attempt is a hook that suspends: the
/// pipeline leaves it behind at the call's deadline and cancels it, which takes it out of the
/// queue (the call then ends with ``RecoveryErrorCode/deadlineExceeded``).
///
/// Put it after a circuit breaker, whose refusals should not wait for a permit, and before the
/// handlers that retry:
///
/// ```swift
/// let handlers: [any RecoverableErrorHandler] = [
///     CircuitBreakerHandler(), ConcurrencyLimitHandler(), BackendTemporaryErrorHandler(),
/// ]
/// ```
///
/// An endpoint that must never queue behind the others (a token refresh that the waiting calls
/// themselves wait for) skips it with `.skipping(.type(ConcurrencyLimitHandler.self))`.
public final class ConcurrencyLimitHandler: RecoverableErrorHandler, Sendable {
    /// How many attempts go at once, and how many may wait.
    ///
    /// | setting | default | why |
    /// |---|---|---|
    /// | ``maxInFlight`` | 64 | OkHttp's `Dispatcher.maxRequests`: plenty for an app, few enough to keep a burst from opening hundreds of connections (Envoy's and Polly's 1,000 and 1,024 are a server's figures) |
    /// | ``maxQueued`` | 64 | as many waiting as running: a burst of twice the limit waits rather than fails, and beyond that failing fast is kinder than a queue that cannot drain before the calls' deadlines (Polly's default queue is 0, OkHttp's unbounded) |
    /// | ``scope`` | ``Scope/all`` | one limit for everything the handler serves; OkHttp adds 5 per host, which ``Scope/perHost`` gives |
    ///
    /// Values below their minimum are raised to it: at least one in flight, a queue of at least 0.
    public struct Configuration: Sendable, Hashable {
        /// Which attempts share a limit.
        public enum Scope: Sendable, Hashable {
            /// Every attempt of the handler.
            case all
            /// The attempts to each host (and port), each with its own limit and queue.
            case perHost
        }

        /// The most attempts in flight at once.
        public var maxInFlight: Int
        /// The most attempts waiting for a permit.
        public var maxQueued: Int
        /// Which attempts share a limit.
        public var scope: Scope

        public init(maxInFlight: Int = 64, maxQueued: Int = 64, scope: Scope = .all) {
            self.maxInFlight = max(1, maxInFlight)
            self.maxQueued = max(0, maxQueued)
            self.scope = scope
        }

        /// The defaults of the table above.
        public static let `default` = Configuration()
    }

    /// The attempts of one limit: those in flight and those waiting.
    private struct Compartment {
        var inFlight = 0
        var waiters: [Waiter] = []

        /// Nothing in flight or waiting: the compartment is dropped, so that memory stays bounded
        /// by the attempts in flight and waiting.
        var isIdle: Bool { inFlight == 0 && waiters.isEmpty }
    }

    private struct Waiter {
        let id: AttemptID
        let context: AttemptContext
        let continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var compartments: [String: Compartment] = [:]
        /// The attempts holding a permit, and the compartment it came from.
        var holders: [AttemptID: String] = [:]
    }

    /// What `prepare` found under the lock.
    private enum Admission {
        case granted
        case queued
        case refused(any Error)
    }

    public let name = "ConcurrencyLimitHandler"
    public let configuration: Configuration
    private let state = Locked(State())

    /// Creates a bulkhead.
    ///
    /// - Parameter configuration: The limit, the queue and their scope.
    public init(configuration: Configuration = .default) {
        self.configuration = configuration
    }

    /// A free permit is taken inline; only a wait in the queue needs the asynchronous `prepare`.
    /// The outcome gives the permit back without waiting.
    public var hooks: HandlerHooks { [.prepareSynchronously, .attemptDidEndSynchronously] }

    /// A bulkhead recovers from nothing: it only makes attempts wait or refuses them.
    public func recover(from failure: FailedAttempt) async throws -> RecoveryDecision { .cannotHandle }

    /// Takes a free permit for the attempt; hands the attempt over to ``prepare(_:context:)``
    /// when it must wait in the queue for one.
    ///
    /// - Throws: ``RecoveryErrorCode/concurrencyLimitReached`` when the queue is full or the
    ///   call has no time left.
    public func prepareSynchronously(
        _ request: inout HTTPRequest, context: AttemptContext
    ) throws -> SynchronousPreparation {
        let key = key(of: request)
        let admission = state.withLock { state in
            admit(context.id, key: key, context: context, continuation: nil, in: &state)
        }
        switch admission {
        case .granted: return .done
        case .refused(let error): throw error
        case .queued: return .continueAsynchronously
        }
    }

    /// Takes a permit for the attempt, waiting in the queue for one if none is free.
    ///
    /// - Throws: ``RecoveryErrorCode/concurrencyLimitReached`` when the queue is full or the
    ///   call has no time left; `CancellationError` when the task is cancelled while waiting.
    public nonisolated(nonsending) func prepare(_ request: inout HTTPRequest, context: AttemptContext) async throws {
        let key = key(of: request)
        let id = context.id
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let admission = state.withLock { state in
                    admit(id, key: key, context: context, continuation: continuation, in: &state)
                }
                switch admission {
                case .granted: continuation.resume()
                case .refused(let error): continuation.resume(throwing: error)
                case .queued: break
                }
            }
        } onCancel: {
            leaveQueue(id, throwing: CancellationError())
        }
    }

    /// The compartment the attempt counts in: one for all, or its host's.
    private func key(of request: HTTPRequest) -> String {
        configuration.scope == .all ? "" : request.authority ?? ""
    }

    /// Gives the attempt's permit back (to the first waiter that still has time), or takes it
    /// out of the queue if it was still waiting.
    public func attemptDidEndSynchronously(_ outcome: AttemptOutcome, context: AttemptContext) {
        guard let (granted, expired) = state.withLock({ state in release(context.id, in: &state) }) else {
            // It held no permit: it may still wait in the queue, left behind by the pipeline.
            leaveQueue(context.id, throwing: CancellationError())
            return
        }
        for waiter in granted { waiter.continuation.resume() }
        for waiter in expired { waiter.continuation.resume(throwing: Self.noTimeLeft(waiter.context)) }
    }

    /// The attempts in flight: in all, or to `host` (its authority, `host:port`) with
    /// ``Configuration/Scope/perHost``.
    public func inFlight(host: String? = nil) -> Int {
        state.withLock { state in
            guard let host else { return state.holders.count }
            return state.compartments[configuration.scope == .all ? "" : host]?.inFlight ?? 0
        }
    }

    /// The attempts waiting for a permit.
    public var queued: Int {
        state.withLock { state in state.compartments.values.reduce(0) { $0 + $1.waiters.count } }
    }

    /// Grants a permit, refuses, or queues the attempt: with a `continuation` to resume when a
    /// permit comes, or without one (`.queued` then means it must wait, and nothing was queued).
    private func admit(
        _ id: AttemptID, key: String, context: AttemptContext,
        continuation: CheckedContinuation<Void, any Error>?, in state: inout State
    ) -> Admission {
        // Checked under the lock: a cancellation that came before the waiter was queued found
        // nothing to take out, so it is seen here.
        if Task.isCancelled { return .refused(CancellationError()) }
        var compartment = state.compartments[key] ?? Compartment()
        defer { state.compartments[key] = compartment.isIdle ? nil : compartment }
        if compartment.inFlight < configuration.maxInFlight && compartment.waiters.isEmpty {
            compartment.inFlight += 1
            state.holders[id] = key
            return .granted
        }
        guard compartment.waiters.count < configuration.maxQueued else {
            return .refused(
                RecoveryError(
                    .concurrencyLimitReached,
                    reason: "\(compartment.inFlight) attempts are in flight and \(compartment.waiters.count) waiting"
                        + (key.isEmpty ? "" : " for \(key)") + ", the most allowed; the attempt was not sent.",
                    context: ["inFlight": "\(compartment.inFlight)", "queued": "\(compartment.waiters.count)"]))
        }
        guard context.timeLeft > .zero else { return .refused(Self.noTimeLeft(context)) }
        guard let continuation else { return .queued }
        compartment.waiters.append(Waiter(id: id, context: context, continuation: continuation))
        return .queued
    }

    /// Frees `id`'s permit and hands it to the waiters in turn: those granted, and those whose
    /// deadline passed while they waited; `nil` when `id` held no permit.
    private func release(_ id: AttemptID, in state: inout State) -> (granted: [Waiter], expired: [Waiter])? {
        guard let key = state.holders.removeValue(forKey: id), var compartment = state.compartments[key] else {
            return nil
        }
        compartment.inFlight -= 1
        var granted: [Waiter] = []
        var expired: [Waiter] = []
        while compartment.inFlight < configuration.maxInFlight, !compartment.waiters.isEmpty {
            let waiter = compartment.waiters.removeFirst()
            guard waiter.context.timeLeft > .zero else {
                expired.append(waiter)
                continue
            }
            compartment.inFlight += 1
            state.holders[waiter.id] = key
            granted.append(waiter)
        }
        state.compartments[key] = compartment.isIdle ? nil : compartment
        return (granted, expired)
    }

    /// Takes `id` out of its queue, if it waits there, and ends its wait with `error`.
    private func leaveQueue(_ id: AttemptID, throwing error: any Error) {
        let waiter = state.withLock { state -> Waiter? in
            for (key, var compartment) in state.compartments {
                guard let index = compartment.waiters.firstIndex(where: { $0.id == id }) else { continue }
                let waiter = compartment.waiters.remove(at: index)
                state.compartments[key] = compartment.isIdle ? nil : compartment
                return waiter
            }
            return nil
        }
        waiter?.continuation.resume(throwing: error)
    }

    private static func noTimeLeft(_ context: AttemptContext) -> RecoveryError {
        RecoveryError(
            .concurrencyLimitReached,
            reason: "The call's deadline passed before a permit was free; attempt \(context.attempt) was not sent.")
    }
}
