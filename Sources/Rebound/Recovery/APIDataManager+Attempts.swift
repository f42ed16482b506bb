public import Foundation
public import HTTPTypes
import Logging
import Synchronization
public import Tracing

// The I/O shell of a call: it performs what the `AttemptLoop` asks (prepare, send, recover,
// wait, report, finish) and tells it what happened. Every decision is the loop's.

extension APIDataManager {
    /// A handler with what the pipeline reads of it once: its name and the hooks it uses.
    struct Participant: Sendable {
        let handler: any RecoverableErrorHandler
        let name: String
        let hooks: HandlerHooks

        init(_ handler: any RecoverableErrorHandler) {
            self.handler = handler
            name = handler.name
            hooks = handler.hooks
        }
    }

    /// What the loop needs of an endpoint: everything but its types, checked and encoded. An
    /// object, made once per call: the steps of a call share it rather than copy its fields.
    @usableFromInline
    final class CallRequest: Sendable {
        let method: HTTPRequest.Method
        let path: String
        let headerFields: HTTPFields
        let body: Data?
        let limits: RequestLimits?
        let options: EndpointOptions
        /// The endpoint's error code, whose name labels its metrics.
        let errorCode: any ErrorCode
        /// The path with its values replaced by `{}`, which names spans.
        let template: String

        /// The endpoint's call, with its JSON body encoded.
        ///
        /// Inlined where the endpoint's types are known, so that the checks and the encoding run
        /// in the non-generic initializer below: a generic one would look up the endpoint's
        /// metadata on every call.
        ///
        /// - Throws: ``NetworkErrorCode/invalidURL`` when the path holds a byte a path may not
        ///   hold, a `.` or `..` segment, or an interpolated value that would name another
        ///   resource; the ``JSONError`` of a body that could not be encoded.
        @inlinable
        convenience init<Response, Code>(_ endpoint: Endpoint<Response, Code>, encoder: JSONEncoder) throws {
            try self.init(
                method: endpoint.method, path: endpoint.path, template: endpoint.template,
                misleadingPath: endpoint.misleadingPath, headerFields: endpoint.headerFields, body: endpoint.body,
                encodeBody: endpoint.encodeBody, encoder: encoder, limits: endpoint.limits, options: endpoint.options,
                errorCode: endpoint.errorCode)
        }

        @usableFromInline
        init(
            method: HTTPRequest.Method, path: String, template: String, misleadingPath: String?,
            headerFields: HTTPFields, body: Data?, encodeBody: (@Sendable (JSONEncoder) throws(JSONError) -> Data)?,
            encoder: JSONEncoder, limits: RequestLimits?, options: EndpointOptions, errorCode: any ErrorCode
        ) throws {
            let check = PercentEncoding.check(pathAndQuery: path)
            if let byte = check.illegalByte {
                throw NetworkError(
                    .invalidURL,
                    reason: "The endpoint's path holds a byte a URL may not hold unencoded (0x"
                        + String(byte, radix: 16, uppercase: true) + "); build it with an interpolated EndpointPath."
                )
            }
            if misleadingPath == path {
                throw NetworkError(
                    .invalidURL,
                    reason: "A value interpolated into the endpoint's path is empty, \".\" or \"..\", "
                        + "which would make the request name another resource.")
            }
            if check.hasDotSegment {
                throw NetworkError(
                    .invalidURL,
                    reason: "The endpoint's path has a \".\" or \"..\" segment, which would make the request "
                        + "name another resource.")
            }
            self.method = method
            self.path = path
            self.headerFields = headerFields
            self.body = try encodeBody.map { encode throws(JSONError) in try encode(encoder) } ?? body
            self.limits = limits
            self.options = options
            self.errorCode = errorCode
            self.template = template
        }

        /// `GET /v1/tasks`, without the query: queries may carry secrets.
        var label: String { endpointLabel(method: method, path: path) }
    }

    /// How a call's attempts ended, before the caller's types make the final value or error: a
    /// tuple, so that the caller takes its parts apart without copying them.
    @usableFromInline
    typealias CallEnding = (result: CallResult, history: [AttemptRecord], span: CallSpan?)

    /// How a call ended: the answer of the attempt that succeeded, or the cause of its failure.
    @usableFromInline
    enum CallResult {
        case success(TransportResponse)
        case failure(any Error)
    }

    /// The numbers of calls: each call's attempts get ids unique in the process.
    private static let callNumbers = Atomic<UInt64>(0)

    /// Runs a call's attempts until one succeeds (after `decode` took its answer) or the call fails.
    ///
    /// It and the other steps of a call are `nonisolated(nonsending)`: they run where
    /// ``send(_:fileID:line:)`` runs, which is `@concurrent` and so never on the caller's actor.
    @usableFromInline
    nonisolated(nonsending) func run(
        _ call: CallRequest,
        decode: (TransportResponse) throws(JSONError) -> Void
    ) async -> CallEnding {
        // Ended by the caller, once the final error is recorded on it.
        let span = tracesCalls ? startSpan(for: call) : nil
        var shell = CallShell(
            manager: self,
            call: call,
            number: Self.callNumbers.add(1, ordering: .relaxed).newValue,
            span: span
        )
        let result = await shell.run(decode: decode)
        return (result, shell.loop.history, span)
    }

    /// The call's span, started; `nil` without a tracer.
    private func startSpan(for call: CallRequest) -> CallSpan? {
        guard let tracer else { return nil }
        let template = HTTPClientConventions.pathTemplate(basePath: basePath, template: call.template)
        let name = HTTPClientConventions.spanName(method: call.method, template: template)
        return CallSpan(Self.startSpan(by: tracer, name))
    }

    private static func startSpan<T: Tracer>(by tracer: T, _ name: String) -> any Span {
        tracer.startSpan(name, ofKind: .internal)
    }
}

/// A call's INTERNAL span, made only when a tracer listens: an object, so that the steps of a
/// call share one reference (every copy of an optional existential goes through its type's
/// metadata).
@usableFromInline
final class CallSpan: Sendable {
    @usableFromInline
    let span: any Span

    init(_ span: any Span) {
        self.span = span
    }
}

/// The state of one call while it runs: the loop, the request as the handlers left it, and
/// what the actions need to remember between events.
///
/// It lives in the frame of the call's `run` and every step is `mutating`, even those that
/// only read: a non-mutating method called from a mutating one would take a copy of the whole
/// shell (a retain of each of its references), and a class would pay a dynamic exclusivity
/// check on every access to its state.
private struct CallShell {
    let manager: APIDataManager
    let call: APIDataManager.CallRequest
    let span: CallSpan?
    /// The handlers that take part in this call (the endpoint may skip some).
    let participants: [APIDataManager.Participant]
    var loop: AttemptLoop
    /// The request as the handlers prepared it: preparing changes it for good.
    var request: HTTPRequest
    /// What the shell remembers of each attempt, from its preparing to its report.
    var slots = Slots()
    /// How this call is hedged; `nil` sends one attempt at a time.
    let hedging: Hedging?
    /// The answer of the attempt that succeeded (the loop's ``AttemptLoop/result`` names it).
    var answer: TransportResponse?
    /// A request a deciding handler asked to send instead.
    var adjusted: HTTPRequest?
    /// The data manager's monitor, for this call.
    let monitor: CallMonitor?

    /// One attempt, as the shell knows it: an object, so that each step changes it in place
    /// rather than moving a copy of it in and out of the call's frame.
    final class Slot {
        let context: AttemptContext
        /// How many participants, in order, the attempt reached while being prepared: they hear
        /// its outcome.
        var reached = 0
        /// The request as it was sent.
        var sent: HTTPRequest?
        /// What the handlers see of its failure.
        var failure: FailedAttempt?
        /// Why it was refused, if it was.
        var refusal: (handler: String, error: any Error)?
        /// The wait the deciding handler asked for, for the log.
        var delay: Duration?
        /// The attempt's span and duration measurement while it is in flight.
        var telemetry: AttemptTelemetry?

        init(context: AttemptContext) {
            self.context = context
        }
    }

    /// The slots of the attempts not yet reported. Without hedging there is one at a time, held
    /// apart; hedges go in an array.
    struct Slots {
        private var first: Slot?
        private var others: [Slot] = []

        /// Adds the slot of an attempt that begins.
        mutating func insert(_ slot: Slot) {
            if first == nil { first = slot } else { others.append(slot) }
        }

        /// Removes and returns the slot of attempt `id`.
        mutating func remove(_ id: AttemptID) -> Slot? {
            if first?.context.id == id { return first.take() }
            guard let index = others.firstIndex(where: { $0.context.id == id }) else { return nil }
            return others.remove(at: index)
        }

        /// The slot of attempt `id`, if it was not reported yet.
        subscript(id: AttemptID) -> Slot? {
            if let first, first.context.id == id { return first }
            return others.first { $0.context.id == id }
        }
    }

    /// A hedged call's settings, resolved from its endpoint's ``HedgingPolicy``.
    struct Hedging {
        let delay: Duration
        let maxHedges: Int
        let budget: RetryBudget?
        /// The endpoint whose durations feed its observed p90, and their window; `nil` with a
        /// fixed delay.
        let measured: (endpoint: String, window: Int)?

        /// The settings of `call` under `policy`, or `nil` when it is not hedged: it has a single
        /// attempt, or a request that may not be sent twice.
        init?(
            _ policy: HedgingPolicy, call: APIDataManager.CallRequest, maxAttempts: Int,
            participants: [APIDataManager.Participant], latencies: EndpointLatencies
        ) {
            guard maxAttempts > 1,
                BackendTemporaryErrorHandler.idempotentMethods.contains(call.method)
                    || call.headerFields[BackendTemporaryErrorHandler.idempotencyKey] != nil
            else { return nil }
            switch policy.delay {
            case .fixed(let delay):
                self.delay = max(delay, .milliseconds(1))
                measured = nil
            case .observedP90(let window, let initial):
                let endpoint = endpointLabel(method: call.method, path: call.template)
                self.delay = max(latencies.p90(of: endpoint) ?? initial, .milliseconds(1))
                measured = (endpoint, EndpointLatencies.clamp(window))
            }
            maxHedges = HedgingPolicy.clamp(policy.maxHedges)
            budget =
                policy.budget
                ?? participants.lazy.compactMap { ($0.handler as? BackendTemporaryErrorHandler)?.budget }.first
        }
    }

    /// What a hedged call's child tasks tell the shell.
    enum RaceEvent: Sendable {
        /// The transport's answer to attempt `id`, not yet judged.
        case answered(AttemptID, Result<TransportResponse, NetworkError>)
        /// The hedging timer of this generation fired; `false` when it was cancelled.
        case hedgeTimer(generation: Int, fired: Bool)
        /// The handlers are done preparing attempt `id`, prepared while another was in flight.
        case prepared(AttemptID, Prepared)
    }

    /// An attempt prepared beside another in flight: how far it went, and the request as the
    /// handlers left it.
    struct Prepared: Sendable {
        let preparation: Preparation
        let request: HTTPRequest
    }

    /// A hedged call's attempts in flight, each in a task of its own so that the loser alone can
    /// be cancelled, and its hedging timer.
    struct Race {
        var transfers: [AttemptID: Task<Result<TransportResponse, NetworkError>, Never>] = [:]
        /// The attempts being prepared while another is in flight.
        var preparing: [AttemptID: Task<Prepared, Never>] = [:]
        /// Only the latest timer counts: each attempt sent sets the next hedge's time anew.
        var generation = 0

        /// Cancels attempt `id`'s transfer (the transport removes it at once), or its preparing.
        mutating func cancel(_ id: AttemptID) {
            transfers.removeValue(forKey: id)?.cancel()
            preparing[id]?.cancel()
        }

        /// The value of `task`, which is cancelled with the child task that waits for it.
        static func value<Value: Sendable>(of task: Task<Value, Never>) async -> Value {
            await withTaskCancellationHandler {
                await task.value
            } onCancel: {
                task.cancel()
            }
        }

        mutating func cancelAll() {
            for transfer in transfers.values { transfer.cancel() }
            transfers.removeAll()
            for task in preparing.values { task.cancel() }
            preparing.removeAll()
        }
    }

    init(manager: APIDataManager, call: APIDataManager.CallRequest, number: UInt64, span: CallSpan?) {
        self.manager = manager
        self.call = call
        self.span = span
        monitor = manager.monitorsCalls ? CallMonitor(manager, call: call, number: number) : nil
        let options = call.options
        participants =
            options.skippedHandlers.isEmpty
            ? manager.participants : manager.participants.filter { options.includes($0.handler) }
        let limits = call.limits ?? manager.limits
        if let policy = call.options.hedging {
            hedging = Hedging(
                policy, call: call, maxAttempts: limits.maxAttempts, participants: participants,
                latencies: manager.latencies)
        } else {
            hedging = nil
        }
        loop = AttemptLoop(
            call: number, limits: limits, startedAt: manager.time.now(), hedgeDelay: hedging?.delay,
            maxHedges: hedging?.maxHedges ?? 1)
        request = HTTPRequest(
            method: call.method,
            scheme: manager.scheme,
            authority: manager.authority,
            path: manager.basePath + call.path,
            headerFields: call.headerFields
        )
    }

    nonisolated(nonsending) mutating func run(decode: (TransportResponse) throws(JSONError) -> Void) async
        -> APIDataManager.CallResult
    {
        loop.start(now: loop.startedAt)
        monitor?.emit(.callStarted)
        if hedging != nil { return await runHedged(decode: decode) }
        // One attempt at a time: each is sent and judged inline.
        while let action = loop.nextAction() {
            if case .send(let id, let timeout) = action {
                let sending = beginSending(id, timeout: timeout)
                let outcome = await manager.attempt(
                    sending.request, body: call.body, options: sending.options, decode: decode)
                answered(id, outcome)
            } else if let result = await perform(action) {
                return result
            }
        }
        return Self.noOutcome
    }

    /// Runs a hedged call: each attempt's transfer in a child task of its own, and the hedging
    /// timer in another; the shell judges the answers and performs the rest inline, as they come.
    nonisolated(nonsending) mutating func runHedged(decode: (TransportResponse) throws(JSONError) -> Void) async
        -> APIDataManager.CallResult
    {
        await withTaskGroup(of: RaceEvent.self) { group in
            var race = Race()
            while true {
                while let action = loop.nextAction() {
                    switch action {
                    case .send(let id, let timeout):
                        let sending = beginSending(id, timeout: timeout)
                        let transport = manager.transport
                        let body = call.body
                        let transfer = Task { () -> Result<TransportResponse, NetworkError> in
                            do throws(NetworkError) {
                                return .success(
                                    try await transport.send(sending.request, body: body, options: sending.options))
                            } catch {
                                return .failure(error)
                            }
                        }
                        race.transfers[id] = transfer
                        group.addTask { .answered(id, await Race.value(of: transfer)) }
                    case .prepare(let id) where !race.transfers.isEmpty:
                        // Beside an attempt in flight, whose answer must not wait for handlers
                        // that hold this one back (a limiter waiting for a token).
                        guard let context = beginPreparing(id)?.context else { continue }
                        let (participants, lastFailure, base) = (participants, loop.lastFailure, request)
                        let preparing = Task { () -> Prepared in
                            var request = base
                            let preparation = await Self.prepare(
                                &request, context: context, participants: participants, lastFailure: lastFailure)
                            return Prepared(preparation: preparation, request: request)
                        }
                        race.preparing[id] = preparing
                        group.addTask { .prepared(id, await Race.value(of: preparing)) }
                    case .report(let id, _) where race.preparing[id] != nil:
                        // The loop ended the attempt while its handlers were preparing it: they
                        // are stopped, and those that were asked hear how it ended.
                        if let preparing = race.preparing.removeValue(forKey: id) {
                            preparing.cancel()
                            let preparation = await preparing.value.preparation
                            slots[id]?.reached = preparation.reached
                            slots[id]?.refusal = preparation.refusal
                        }
                        _ = await perform(action)
                    case .scheduleHedge(let delay):
                        race.generation += 1
                        let generation = race.generation
                        let time = manager.time
                        group.addTask {
                            do {
                                try await time.sleep(for: delay)
                                return .hedgeTimer(generation: generation, fired: true)
                            } catch {
                                return .hedgeTimer(generation: generation, fired: false)
                            }
                        }
                    case .cancel(let id):
                        race.cancel(id)
                        slots[id]?.telemetry.take()?.end(
                            manager, response: nil,
                            error: NetworkError(.cancelled, reason: "The attempt was cancelled."))
                    default:
                        guard let result = await perform(action) else { continue }
                        race.cancelAll()
                        group.cancelAll()
                        return result
                    }
                }
                guard let event = await group.next() else {
                    race.cancelAll()
                    return Self.noOutcome
                }
                switch event {
                case .answered(let id, let result):
                    race.transfers[id] = nil
                    // A loser's answer, cancelled or not, comes after the loop ended it.
                    guard loop.attempt(id)?.phase == .sending else { continue }
                    let outcome: APIDataManager.AttemptResult
                    switch result {
                    case .success(let response): outcome = manager.judge(response, decode: decode)
                    case .failure(let error): outcome = .failure(error, nil)
                    }
                    answered(id, outcome)
                case .prepared(let id, let prepared):
                    // One the loop ended meanwhile was settled when its outcome was reported.
                    guard race.preparing.removeValue(forKey: id) != nil else { continue }
                    request = prepared.request
                    // Cut short by the call's cancellation, not refused: the call ends cancelled.
                    if Task.isCancelled { loop.cancelled(now: manager.time.now()) }
                    finishPreparing(id, prepared.preparation)
                case .hedgeTimer(let generation, let fired):
                    if !fired, Task.isCancelled {
                        loop.cancelled(now: manager.time.now())
                    } else if fired, generation == race.generation, HedgingPolicy.allows(hedging?.budget) {
                        let before = loop.attempts.count
                        loop.hedgeDue(now: manager.time.now())
                        if loop.attempts.count > before { hedged(attempt: loop.attempts.count) }
                    }
                }
            }
        }
    }

    /// Tells the monitor and the log that `attempt` goes out as a hedge.
    private mutating func hedged(attempt: Int) {
        let delay = loop.hedgeDelay ?? .zero
        monitor?.emit(.hedging, attempt: attempt, delay: delay)
        let (seconds, attoseconds) = delay.components
        manager.logger.info(
            "hedging",
            metadata: [
                "endpoint": "\(call.label)", "attempt": "\(attempt)",
                "after": "\(String(format: "%.3f", Double(seconds) + Double(attoseconds) / 1e18)) s",
            ])
    }

    /// How performing an action went without suspending.
    enum InlineStep {
        /// It is done; the loop has the next action.
        case performed
        /// It finished the call.
        case finished(APIDataManager.CallResult)
        /// It goes on in a hook, a recovery or a wait that may suspend.
        case suspends(Suspension)
    }

    /// The part of an action that may suspend.
    enum Suspension {
        /// The participant at index `from` awaits its asynchronous `prepare` for the attempt.
        case preparing(Slot, from: Int)
        /// The participant at index `from` awaits its asynchronous `attemptDidEnd`; the others
        /// the attempt reached hear the outcome after it. Boxed, so that the step the inline
        /// work hands back stays a few words.
        indirect case reporting(AttemptOutcome, Slot, from: Int)
        case recovering(AttemptID)
        case waiting(Duration)
    }

    /// Performs an action other than sending, and returns the call's result when it finished the call.
    private nonisolated(nonsending) mutating func perform(_ action: AttemptLoop.Action) async
        -> APIDataManager.CallResult?
    {
        switch performInline(action) {
        case .performed: return nil
        case .finished(let result): return result
        case .suspends(let suspension):
            await resume(suspension)
            return nil
        }
    }

    /// Performs what an action other than sending needs without suspending: hooks that never
    /// suspend are called here, so that a call whose handlers all answer inline awaits nothing
    /// but its transfer.
    private mutating func performInline(_ action: AttemptLoop.Action) -> InlineStep {
        switch action {
        case .prepare(let id):
            guard let slot = beginPreparing(id) else { return .performed }
            switch Self.prepareInline(&request, context: slot.context, participants: participants, from: 0) {
            case .finished(let preparation):
                finishPreparing(id, preparation)
                return .performed
            case .awaits(let index):
                return .suspends(.preparing(slot, from: index))
            }
        case .recover(let id):
            return .suspends(.recovering(id))
        case .wait(let delay):
            manager.instruments.recordRetryDelay(delay)
            monitor?.emit(.waiting, delay: delay)
            return .suspends(.waiting(delay))
        case .send, .scheduleHedge, .cancel:
            // The caller's: they depend on whether the call is hedged.
            return .performed
        case .report(let id, let ending):
            guard let slot = slots.remove(id), let outcome = outcome(of: id, ending, slot: slot) else {
                return .performed
            }
            guard let index = notifyInline(outcome, context: slot.context, reached: slot.reached, from: 0) else {
                return .performed
            }
            return .suspends(.reporting(outcome, slot, from: index))
        case .finish:
            switch loop.result {
            case .success:
                guard let answer = answer.take() else { return .performed }
                monitor?.emit(
                    .callSucceeded, status: answer.statusCode, duration: manager.time.now() - loop.startedAt)
                return .finished(.success(answer))
            case .failure(let cause):
                monitor?.emit(.callFailed, error: cause, duration: manager.time.now() - loop.startedAt)
                return .finished(.failure(cause))
            case nil:
                return .performed
            }
        }
    }

    /// Goes on with an action where it had to suspend.
    private nonisolated(nonsending) mutating func resume(_ suspension: Suspension) async {
        switch suspension {
        case .preparing(let slot, let index):
            let preparation = await Self.prepare(
                &request, context: slot.context, participants: participants, lastFailure: loop.lastFailure,
                awaiting: index)
            finishPreparing(slot.context.id, preparation)
        case .recovering(let id):
            await recover(id)
        case .waiting(let delay):
            do {
                try await manager.time.sleep(for: delay)
                loop.waited(now: manager.time.now())
            } catch {
                loop.cancelled(now: manager.time.now())
            }
        case .reporting(let outcome, let slot, let index):
            await notify(outcome, context: slot.context, reached: slot.reached, from: index)
        }
    }

    /// The loop ends every call with `finish`; this is returned only if it did not.
    private static var noOutcome: APIDataManager.CallResult {
        .failure(RecoveryError(.retriesExhausted, reason: "The attempt loop ended without an outcome."))
    }

    // MARK: - Actions

    /// Opens attempt `id`'s slot and returns it; `nil` when the call was cancelled.
    private mutating func beginPreparing(_ id: AttemptID) -> Slot? {
        let slot = Slot(
            context: AttemptContext(
                id: id, maxAttempts: loop.maxAttempts, deadline: loop.deadline, options: call.options,
                method: call.method, path: call.path, time: manager.time))
        slots.insert(slot)
        monitor?.emit(.attemptStarted, attempt: id.attempt)
        if Task.isCancelled {
            loop.cancelled(now: manager.time.now())
            return nil
        }
        if let adjusted = adjusted.take() { request = adjusted }
        return slot
    }

    /// How far preparing an attempt went.
    struct Preparation: Sendable {
        /// How many participants, in order, were asked: they hear the attempt's outcome.
        var reached: Int
        /// The participant that refused the attempt, and why; `nil` when every one prepared it.
        var refusal: (handler: String, error: any Error)?
    }

    /// Where preparing an attempt stands after the hooks that never suspend.
    enum PreparingStep {
        /// Every participant was asked, or one refused.
        case finished(Preparation)
        /// The participant at this index must be awaited: it has only an asynchronous `prepare`,
        /// or its synchronous one handed over.
        case awaits(Int)
    }

    /// Asks the participants' `prepare` hooks from index `start`, in order, as long as they answer
    /// without suspending; the first that throws refuses the attempt.
    private static func prepareInline(
        _ request: inout HTTPRequest, context: AttemptContext, participants: [APIDataManager.Participant],
        from start: Int
    ) -> PreparingStep {
        // By index: a `for … in` loop copies each participant (retains of its handler and name).
        for index in start..<participants.count {
            let hooks = participants[index].hooks
            if hooks.contains(.prepareSynchronously) {
                do {
                    let step = try participants[index].handler.prepareSynchronously(&request, context: context)
                    if step == .done { continue }
                } catch {
                    return .finished(refused(by: index, participants, HookCall.handlerFailure(error)))
                }
            } else if !hooks.contains(.prepare) {
                continue
            }
            return .awaits(index)
        }
        return .finished(Preparation(reached: participants.count, refusal: nil))
    }

    /// Asks every participant's `prepare` hooks, in order: inline as long as they answer inline.
    private nonisolated(nonsending) static func prepare(
        _ request: inout HTTPRequest, context: AttemptContext, participants: [APIDataManager.Participant],
        lastFailure: (any Error)?
    ) async -> Preparation {
        switch prepareInline(&request, context: context, participants: participants, from: 0) {
        case .finished(let preparation): return preparation
        case .awaits(let index):
            return await prepare(
                &request, context: context, participants: participants, lastFailure: lastFailure, awaiting: index)
        }
    }

    /// Awaits the asynchronous `prepare` of the participant at index `awaited`, then asks those
    /// after it in order, awaiting those that suspend; the first that throws (or is still at it
    /// when the deadline passes) refuses the attempt.
    private nonisolated(nonsending) static func prepare(
        _ request: inout HTTPRequest, context: AttemptContext, participants: [APIDataManager.Participant],
        lastFailure: (any Error)?, awaiting awaited: Int
    ) async -> Preparation {
        var index = awaited
        while true {
            let participant = participants[index]
            let handler = participant.handler
            let before = request
            do {
                let prepared = try await HookCall.bounded(by: context) {
                    var request = before
                    try await handler.prepare(&request, context: context)
                    return request
                }
                guard let prepared else {
                    return refused(
                        by: index, participants,
                        RecoveryError(
                            .deadlineExceeded, cause: lastFailure,
                            reason:
                                "The deadline passed while \(participant.name) was preparing attempt \(context.attempt)."
                        ))
                }
                request = prepared
            } catch {
                return refused(by: index, participants, HookCall.handlerFailure(error))
            }
            switch prepareInline(&request, context: context, participants: participants, from: index + 1) {
            case .finished(let preparation): return preparation
            case .awaits(let next): index = next
            }
        }
    }

    /// The participant at `index` refused the attempt: it and those before it hear the outcome;
    /// those after it were never asked.
    private static func refused(
        by index: Int, _ participants: [APIDataManager.Participant], _ refusal: any Error
    ) -> Preparation {
        Preparation(reached: index + 1, refusal: (participants[index].name, refusal))
    }

    /// Records how preparing attempt `id` went, and tells the loop unless it ended the attempt
    /// meanwhile (a hedge whose call another attempt won).
    private mutating func finishPreparing(_ id: AttemptID, _ preparation: Preparation) {
        if let slot = slots[id] {
            slot.reached = preparation.reached
            slot.refusal = preparation.refusal
        }
        if let refusal = preparation.refusal {
            loop.refused(id, error: refusal.error, now: manager.time.now())
        } else {
            loop.prepared(id, now: manager.time.now())
        }
    }

    /// An attempt on its way: the request as sent and its transport options.
    struct Sending {
        let request: HTTPRequest
        let options: TransportOptions
    }

    /// Makes the attempt's request and options as they go to the transport, and starts its
    /// telemetry.
    private mutating func beginSending(_ id: AttemptID, timeout: Duration) -> Sending {
        var options = manager.transportOptions
        options.timeout = timeout
        var request = self.request
        let telemetry =
            manager.observesAttempts
            ? AttemptTelemetry(
                manager, parent: span?.span,
                template: HTTPClientConventions.pathTemplate(basePath: manager.basePath, template: call.template),
                id: id, request: &request) : nil
        if let slot = slots[id] {
            slot.sent = request
            slot.telemetry = telemetry
        }
        monitor?.emit(.attemptSent, attempt: id.attempt)
        return Sending(request: request, options: options)
    }

    /// Tells the loop how the attempt came out: a success only once `decode` took its answer.
    private mutating func answered(_ id: AttemptID, _ outcome: consuming APIDataManager.AttemptResult) {
        slots[id]?.telemetry.take()?.end(manager, outcome)
        manager.instruments.recordAttempt(endpoint: call.errorCode.name, succeeded: outcome.isSuccess)
        let now = manager.time.now()
        let duration = now - (loop.started(id) ?? now)
        monitor?.attemptEnded(outcome, attempt: id.attempt, duration: duration)
        switch consume outcome {
        case .success(let response):
            let status = response.statusCode
            answer = response
            if let measured = hedging?.measured {
                // Counted from the earliest attempt still in flight: a hedge that won answered in
                // place of an attempt that had taken at least that long. Its own time alone would
                // be under the delay that sent it, and the observed p90 would sink call by call.
                let firstSent =
                    loop.attempts.lazy.filter { $0.phase == .sending }.map(\.started).min() ?? now - duration
                manager.latencies.record(now - firstSent, for: measured.endpoint, window: measured.window)
            }
            return loop.succeeded(id, status: status, now: now)
        case .failure(let error, let response):
            guard let context = slots[id]?.context, let request = slots[id]?.sent else { return }
            let failure = FailedAttempt(
                error: error,
                request: request,
                body: call.body,
                response: response,
                context: context,
                timeLeft: loop.deadline - now,
                delayBefore: loop.attempt(id)?.delayBefore ?? .zero,
                history: loop.history
            )
            slots[id]?.failure = failure
            let cancelled = error.firstError(in: NetworkErrorCode.self)?.code == .cancelled || Task.isCancelled
            return loop.failed(id, error: error, status: response?.statusCode, cancelled: cancelled, now: now)
        }
    }

    /// Asks the participants in order until one recovers; a handler's own failure, or the
    /// deadline passing while it decides, ends the call.
    private nonisolated(nonsending) mutating func recover(_ id: AttemptID) async {
        guard let failure = slots[id]?.failure else { return }
        var decision = AttemptLoop.Decision.none
        asking: for participant in participants {
            do {
                let handler = participant.handler
                guard
                    let decided = try await HookCall.bounded(
                        by: failure.context,
                        {
                            try await handler.recover(from: failure)
                        })
                else {
                    decision = .handlerFailed(
                        RecoveryError(
                            .deadlineExceeded, cause: failure.error,
                            reason: "The deadline passed while \(participant.name) was recovering."))
                    break asking
                }
                if case .didHandle(let plan) = decided {
                    decision = .retry(handler: participant.name, delay: plan.delay)
                    adjusted = plan.request
                    slots[id]?.delay = plan.delay
                    monitor?.emit(.handlerDecided, attempt: id.attempt, handler: participant.name, delay: plan.delay)
                    manager.instruments.recordRecovery(handler: participant.name)
                    break asking
                }
            } catch {
                decision = .handlerFailed(HookCall.handlerFailure(error))
                break asking
            }
        }
        return loop.decided(id, decision, now: manager.time.now())
    }

    /// What the participants that prepared attempt `id` hear of how it ended, logged and traced
    /// here; `nil` if the shell lacks what the ending needs.
    private mutating func outcome(of id: AttemptID, _ ending: AttemptLoop.Ending, slot: Slot) -> AttemptOutcome? {
        let outcome: AttemptOutcome
        switch ending {
        case .succeeded:
            guard let response = answer, let request = slot.sent else { return nil }
            manager.logger.debug(
                "attempt succeeded",
                metadata: [
                    "endpoint": "\(call.label)", "attempt": "\(id.attempt)", "status": "\(response.statusCode)",
                ])
            outcome = .succeeded(request: request, response: response)
        case .failed(let recordIndex):
            guard let failure = slot.failure else { return nil }
            let record = loop.history[recordIndex]
            outcome = .failed(failure, record: record)
            logFailure(record, delay: slot.delay)
        case .cancelled:
            outcome = .cancelled
        case .refused:
            let refusal = slot.refusal
            let error = refusal?.error ?? RecoveryError(.deadlineExceeded, cause: loop.lastFailure)
            outcome = .refused(handler: refusal?.handler, error: error)
            monitor?.emit(.attemptRefused, attempt: id.attempt, error: error, handler: refusal?.handler)
        case .abandoned:
            outcome = .abandoned
            monitor?.emit(.attemptAbandoned, attempt: id.attempt)
            manager.logger.info(
                "attempt abandoned", metadata: ["endpoint": "\(call.label)", "attempt": "\(id.attempt)"])
        }
        if let span = span?.span, span.isRecording, let record = loop.history.last(where: { $0.number == id.attempt }),
            ending == .succeeded || outcome.isFailure
        {
            span.addEvent(Self.event(record, delay: slot.delay))
        }
        return outcome
    }

    /// Tells the participants from index `start` up to `reached` the attempt's outcome, as long as
    /// their hooks answer without suspending; returns the index of the first to be awaited.
    private mutating func notifyInline(
        _ outcome: AttemptOutcome, context: AttemptContext, reached: Int, from start: Int
    ) -> Int? {
        for index in start..<reached {
            let hooks = participants[index].hooks
            if hooks.contains(.attemptDidEndSynchronously) {
                participants[index].handler.attemptDidEndSynchronously(outcome, context: context)
            } else if hooks.contains(.attemptDidEnd) {
                return index
            }
        }
        return nil
    }

    /// Tells the participants from index `start` up to `reached` the attempt's outcome, awaiting
    /// those whose hook suspends, each until the call's deadline at most.
    private nonisolated(nonsending) mutating func notify(
        _ outcome: AttemptOutcome, context: AttemptContext, reached: Int, from start: Int
    ) async {
        var next: Int? = start
        while let index = next {
            let participant = participants[index]
            let handler = participant.handler
            do {
                let observed: Void? = try await HookCall.bounded(by: context) {
                    await handler.attemptDidEnd(outcome, context: context)
                }
                if observed == nil {
                    manager.logger.warning(
                        "attemptDidEnd left behind at the deadline",
                        metadata: ["endpoint": "\(call.label)", "handler": "\(participant.name)"])
                }
            } catch {
                // Cancelled while the hook was still at it: the call ends all the same.
            }
            next = notifyInline(outcome, context: context, reached: reached, from: index + 1)
        }
    }

    private mutating func logFailure(_ record: AttemptRecord, delay: Duration?) {
        let logger = manager.logger
        guard logger.logLevel <= .info else { return }
        var metadata: Logger.Metadata = [
            "endpoint": "\(call.label)", "attempt": "\(record.number)", "chain": "\(record.error ?? "")",
        ]
        if let status = record.status { metadata["status"] = "\(status)" }
        if let handler = record.handler { metadata["handler"] = "\(handler)" }
        if let delay {
            let (seconds, attoseconds) = delay.components
            metadata["delay"] = "\(String(format: "%.3f", Double(seconds) + Double(attoseconds) / 1e18)) s"
        }
        logger.info(record.handler == nil ? "attempt failed" : "attempt failed, recovering", metadata: metadata)
    }

    private static func event(_ record: AttemptRecord, delay: Duration?) -> SpanEvent {
        var attributes = SpanAttributes()
        attributes["rebound.attempt"] = record.number
        if let status = record.status { attributes["http.response.status_code"] = status }
        if let error = record.error { attributes["rebound.chain"] = error }
        if let handler = record.handler {
            attributes["rebound.handler"] = handler
            if let delay {
                let (seconds, attoseconds) = delay.components
                attributes["rebound.retry.delay"] = Double(seconds) + Double(attoseconds) / 1e18
            }
        }
        return SpanEvent(name: "attempt", attributes: attributes)
    }
}

extension AttemptOutcome {
    fileprivate var isFailure: Bool {
        if case .failed = self { return true }
        return false
    }
}

/// How the pipeline calls every hook of every handler: the same way for all, whatever the clock.
enum HookCall {
    /// The hook's result, or `nil` when the call's deadline passed while it was suspended.
    ///
    /// The hook starts on the calling thread; one that returns without suspending is simply done
    /// (``TimeLimit``). One that suspends is raced against the time left on the pipeline's clock
    /// and left behind, cancelled, when the deadline comes first.
    nonisolated(nonsending) static func bounded<Value: Sendable>(
        by context: AttemptContext,
        _ hook: @escaping @Sendable () async throws -> Value
    ) async throws -> Value? {
        try await TimeLimit.run(limit: context.timeLeft, on: context.time, hook)
    }

    /// A handler's own failure, as it appears in the chain.
    static func handlerFailure(_ error: any Error) -> any Error {
        switch error {
        case is any LayeredError: error
        case is CancellationError: RecoveryError(.cancelled, cause: error)
        default: RecoveryError(.handlerFailed, cause: error)
        }
    }
}

extension APIDataManager {
    /// How one attempt's transfer and judging came out.
    enum AttemptResult {
        /// `decode` took the answer.
        case success(TransportResponse)
        case failure(any Error, TransportResponse?)

        var isSuccess: Bool {
            if case .success = self { return true }
            return false
        }
    }

    /// One attempt: send, then judge and classify the answer.
    nonisolated(nonsending) func attempt(
        _ request: HTTPRequest,
        body: Data?,
        options: TransportOptions,
        decode: (TransportResponse) throws(JSONError) -> Void
    ) async -> AttemptResult {
        let response: TransportResponse
        do {
            response = try await transport.send(request, body: body, options: options)
        } catch {
            return .failure(error, nil)
        }
        return judge(response, decode: decode)
    }

    /// Judges an answer: a success is a 2xx that `decode` took; any other status is classified
    /// (by the backend's error parser, or as an ``HTTPError``).
    func judge(
        _ response: consuming TransportResponse, decode: (TransportResponse) throws(JSONError) -> Void
    ) -> AttemptResult {
        guard (200..<300).contains(response.statusCode) else {
            let failure =
                backendErrorParser?.parse(response.head, body: response.body) ?? HTTPError(response: response.head)
            return .failure(failure, response)
        }
        do throws(JSONError) {
            try decode(response)
            return .success(response)
        } catch {
            return .failure(error, response)
        }
    }
}
