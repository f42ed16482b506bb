/// The attempts of one call, as a state machine: each transition takes an event and queues the
/// actions to perform, which ``nextAction()`` hands out in order. No I/O happens here;
/// ``APIDataManager`` performs the actions (preparing, sending, asking the handlers, waiting) and
/// reports what happened as the next event.
///
/// ```
///            start ──► preparing ──prepared──► sending ──succeeded──────────────────► finished (value)
///                          ▲   │ refused           │ failed
///                          │   ▼                   ▼
///                          │ finished     judged: last attempt, cancelled ─────────► finished (error)
///                          │                       │ else
///                          │                       ▼
///                       waiting ◄──retry── recovering ──none, handler failed,
///                      (≤ deadline)                      wait past the deadline ───► finished (error)
/// ```
///
/// It keeps every attempt by id, so that more than one may be in flight (hedging, with a
/// ``HedgingPolicy``: another attempt is started when none has answered after a delay, while
/// fewer than ``maxInFlight`` are out; the first success wins and the others are cancelled and
/// abandoned; a failure a handler would retry sends the next attempt at once, without its wait).
/// It records each attempt once, and reports an outcome exactly once for every attempt it
/// prepared, whichever way the call ends.
struct AttemptLoop {
    /// An attempt the loop has started.
    struct Attempt {
        enum Phase: Equatable {
            case preparing
            case sending
            case recovering
            case ended
        }

        let id: AttemptID
        var phase: Phase
        /// When it was sent (or, before that, when its preparing began).
        var started: Duration
        /// How long the loop waited before preparing it.
        let delayBefore: Duration
        /// Why it failed, once it did: the cause of the call's error if no handler recovers.
        var failure: (any Error)?
        /// Whether it was started by the hedging timer beside an attempt in flight, not to retry.
        var isHedge = false
    }

    /// What the loop tells its shell to do. Plain values, copied without reference counting:
    /// what an action needs beyond ids and durations (a refusal's handler, the call's error) the
    /// shell or the loop keeps.
    enum Action: Equatable {
        /// Ask every handler's `prepare` for this attempt; answer with ``prepared(_:now:)`` or
        /// ``refused(_:error:now:)``.
        case prepare(AttemptID)
        /// Send the attempt with this timeout; answer with ``succeeded(_:status:now:)`` or
        /// ``failed(_:error:status:now:)``.
        case send(AttemptID, timeout: Duration)
        /// Ask the handlers, in order, about this attempt's failure; answer with ``decided(_:_:now:)``.
        case recover(AttemptID)
        /// Wait, then answer with ``waited(now:)``.
        case wait(Duration)
        /// Start a timer; when it fires with the attempt still unanswered, answer with
        /// ``hedgeDue(now:)``.
        case scheduleHedge(after: Duration)
        /// Cancel this attempt's transfer: another one won.
        case cancel(AttemptID)
        /// Tell the handlers that prepared this attempt how it ended.
        case report(AttemptID, Ending)
        /// The call is over (``result`` says how): perform nothing more but the final bookkeeping.
        case finish
    }

    /// How one attempt ended, as the handlers hear it (``AttemptOutcome``).
    enum Ending: Equatable {
        case succeeded
        /// Failed; `record` holds the deciding handler when there was one.
        case failed(record: Int)
        case cancelled
        /// Refused before it was sent: by a handler's `prepare`, or by the deadline.
        case refused
        case abandoned
    }

    /// How the call ends.
    enum Result {
        /// This attempt's answer is the call's value.
        case success(AttemptID)
        /// The call failed; `cause` becomes the cause of the caller's API error.
        case failure(cause: any Error)
    }

    /// What the handlers decided about a failed attempt.
    enum Decision {
        /// `handler` will have it sent again, after `delay`.
        case retry(handler: String, delay: Duration)
        /// No handler could help.
        case none
        /// A handler's recovery failed (it threw, or it did not decide before the deadline):
        /// `error` ends the call.
        case handlerFailed(any Error)
    }

    let maxAttempts: Int
    /// When the call started, on the pipeline's monotonic clock.
    let startedAt: Duration
    /// When the call must end, on the pipeline's monotonic clock.
    let deadline: Duration
    /// The time each attempt may take at most, before the deadline shortens it.
    let attemptTimeout: Duration
    /// Another attempt is started after this delay while the first has not answered (`nil`: never).
    let hedgeDelay: Duration?
    /// The most attempts in flight at once: 1 without hedging.
    let maxInFlight: Int

    private(set) var attempts: [Attempt] = []
    /// One record per attempt that was sent, oldest first.
    private(set) var history: [AttemptRecord] = []
    /// How the call ended, once it did.
    private(set) var result: Result?
    var isFinished: Bool { result != nil }
    /// The failure of the last attempt that failed.
    private(set) var lastFailure: (any Error)?
    /// The cause the call ends with once the attempts still out are done: a sent attempt failed
    /// for the last time while another was being prepared or sent. A hedge refused then never
    /// went out, and leaves it standing; a later failure replaces it.
    private var endingCause: (any Error)?
    /// The delay the deciding handler asked for, recorded on the attempt after it.
    private var pendingDelay: Duration = .zero
    /// The actions the events asked for, performed in order (``nextAction()``): those before
    /// `handedOut` were handed out already.
    private var outbox: [Action] = []
    private var handedOut = 0
    private let call: UInt64

    /// Creates the loop of one call.
    ///
    /// - Parameters:
    ///   - call: The call's number, the first part of its attempts' ids.
    ///   - limits: The call's limits.
    ///   - now: When the call starts.
    ///   - hedgeDelay: When another attempt is due beside one in flight; `nil` never hedges.
    ///   - maxHedges: The most attempts beside the first in flight at once, when hedging.
    init(
        call: UInt64, limits: RequestLimits, startedAt now: Duration, hedgeDelay: Duration? = nil, maxHedges: Int = 1
    ) {
        self.call = call
        maxAttempts = max(1, limits.maxAttempts)
        startedAt = now
        deadline = now + limits.deadline
        attemptTimeout = limits.attemptTimeout
        self.hedgeDelay = hedgeDelay
        maxInFlight = hedgeDelay == nil ? 1 : 1 + max(1, maxHedges)
        // Room for a successful call's actions (prepare, send, report, finish) at once.
        outbox.reserveCapacity(4)
    }

    /// The attempt with this id.
    func attempt(_ id: AttemptID) -> Attempt? { attempts.first { $0.id == id } }

    /// When attempt `id` was sent, or began preparing if it was not sent.
    func started(_ id: AttemptID) -> Duration? {
        attempts.firstIndex { $0.id == id }.map { attempts[$0].started }
    }

    /// How many attempts are prepared or in flight.
    var inFlight: Int { attempts.count { $0.phase == .preparing || $0.phase == .sending } }

    // MARK: - Events

    /// The call starts.
    mutating func start(now: Duration) {
        emit(.prepare(begin(now: now, after: .zero)))
    }

    /// Every handler prepared the attempt.
    mutating func prepared(_ id: AttemptID, now: Duration) {
        guard let index = index(of: id, in: .preparing) else { return }
        let left = deadline - now
        guard left > .zero else {
            let number = id.attempt
            refuse(
                at: index,
                error: RecoveryError(
                    .deadlineExceeded, cause: lastFailure, reason: "The deadline passed before attempt \(number)."))
            return
        }
        attempts[index].phase = .sending
        attempts[index].started = now
        emit(.send(id, timeout: min(attemptTimeout, left)))
        // Each attempt sent sets the time of the next hedge anew.
        if let hedgeDelay, attempts.count < maxAttempts, inFlight < maxInFlight {
            emit(.scheduleHedge(after: hedgeDelay))
        }
    }

    /// A handler's `prepare` refused the attempt (it threw, or the deadline passed while it
    /// prepared): `error` ends the call, unless another attempt is still in flight, or the
    /// attempt was a hedge beside one that failed for the last time (its failure ends the call).
    mutating func refused(_ id: AttemptID, error: any Error, now: Duration) {
        guard let index = index(of: id, in: .preparing) else { return }
        refuse(at: index, error: error)
    }

    /// The attempt's answer was a success, and decoded.
    mutating func succeeded(_ id: AttemptID, status: Int, now: Duration) {
        guard let index = index(of: id, in: .sending) else { return }
        attempts[index].phase = .ended
        record(at: index, status: status, chain: nil, now: now)
        // The losers' transfers go before the winner's handlers hear of it, which may take time.
        let losers = cancelOthers()
        emit(.report(id, .succeeded))
        for loser in losers { emit(.report(loser, .abandoned)) }
        finish(.success(id))
    }

    /// The attempt failed: its transfer, its status or its decoding. `cancelled` says whether
    /// the calling task was cancelled (or the transfer was, with it).
    mutating func failed(_ id: AttemptID, error: any Error, status: Int?, cancelled: Bool, now: Duration) {
        guard let index = index(of: id, in: .sending) else { return }
        attempts[index].failure = error
        lastFailure = error
        let recordIndex = record(at: index, status: status, chain: ErrorChain(error), now: now)
        if cancelled {
            attempts[index].phase = .ended
            // A transfer cut short by the cancellation never answered: its outcome is the
            // cancellation. One that answered (a 503) before the task was cancelled failed.
            if error.firstError(in: NetworkErrorCode.self)?.code == .cancelled {
                emit(.report(id, .cancelled))
                cancelAll(cause: error)
            } else {
                emit(.report(id, .failed(record: recordIndex)))
                cancelAll(cause: RecoveryError(.cancelled, cause: error, reason: "Cancelled before retrying."))
            }
            return
        }
        guard attempts.count < maxAttempts else {
            attempts[index].phase = .ended
            emit(.report(id, .failed(record: recordIndex)))
            endUnlessInFlight(cause: exhausted(error, recordIndex: recordIndex))
            return
        }
        attempts[index].phase = .recovering
        emit(.recover(id))
    }

    /// The handlers decided about a failed attempt.
    mutating func decided(_ id: AttemptID, _ decision: Decision, now: Duration) {
        guard let index = index(of: id, in: .recovering), let error = attempts[index].failure,
            let recordIndex = history.lastIndex(where: { $0.number == id.attempt })
        else { return }
        attempts[index].phase = .ended
        switch decision {
        case .none:
            emit(.report(id, .failed(record: recordIndex)))
            endAbandoningOthers(cause: error)
        case .handlerFailed(let failure):
            emit(.report(id, .failed(record: recordIndex)))
            endAbandoningOthers(cause: failure)
        case .retry(let handler, let delay):
            let left = deadline - now
            // A hedged call sends its next attempt at once, whatever wait the handler asked for.
            let wait = hedgeDelay != nil || inFlight > 0 ? .zero : delay
            // Waiting up to the deadline itself would leave no time to send again.
            guard wait < left else {
                emit(.report(id, .failed(record: recordIndex)))
                endUnlessInFlight(
                    cause: RecoveryError(
                        .deadlineExceeded, cause: error,
                        reason: "Waiting \(wait) to retry would pass the deadline (\(left) left)."))
                return
            }
            history[recordIndex].handler = handler
            emit(.report(id, .failed(record: recordIndex)))
            if hedgeDelay != nil || inFlight > 0 {
                // Hedging: a retryable failure sends the next attempt at once, without backoff.
                emit(.prepare(begin(now: now, after: .zero)))
            } else {
                pendingDelay = delay
                emit(delay > .zero ? .wait(delay) : .prepare(begin(now: now, after: delay)))
            }
        }
    }

    /// The wait before the next attempt is over.
    mutating func waited(now: Duration) {
        guard !isFinished, inFlight == 0 else { return }
        emit(.prepare(begin(now: now, after: pendingDelay)))
    }

    /// The hedging delay passed: another attempt goes out while one is still unanswered, fewer
    /// than ``maxInFlight`` are out, and the call has attempts and time left.
    mutating func hedgeDue(now: Duration) {
        guard !isFinished, hedgeDelay != nil, attempts.count < maxAttempts, inFlight > 0, inFlight < maxInFlight,
            deadline - now > .zero
        else { return }
        emit(.prepare(begin(now: now, after: .zero, isHedge: true)))
    }

    /// The calling task was cancelled, while waiting or with attempts in flight.
    mutating func cancelled(now: Duration) {
        guard !isFinished else { return }
        cancelAll(
            cause: RecoveryError(
                .cancelled, cause: lastFailure ?? CancellationError(),
                reason: history.isEmpty ? nil : "Cancelled while waiting to retry."))
    }

    // MARK: - Actions

    /// The next action to perform, oldest first, or `nil` when the loop waits for an event.
    mutating func nextAction() -> Action? {
        guard handedOut < outbox.count else {
            // Emptied once all were handed out, rather than shifted on each.
            outbox.removeAll(keepingCapacity: true)
            handedOut = 0
            return nil
        }
        handedOut += 1
        return outbox[handedOut - 1]
    }

    private mutating func emit(_ action: Action) {
        outbox.append(action)
    }

    // MARK: - Helpers

    private mutating func refuse(at index: Int, error: any Error) {
        attempts[index].phase = .ended
        emit(.report(attempts[index].id, .refused))
        guard inFlight == 0 else { return }
        finish(.failure(cause: attempts[index].isHedge ? endingCause ?? error : error))
    }

    private mutating func begin(now: Duration, after delay: Duration, isHedge: Bool = false) -> AttemptID {
        let id = AttemptID(call: call, attempt: attempts.count + 1)
        attempts.append(Attempt(id: id, phase: .preparing, started: now, delayBefore: delay, isHedge: isHedge))
        return id
    }

    private func index(of id: AttemptID, in phase: Attempt.Phase) -> Int? {
        guard !isFinished, let index = attempts.firstIndex(where: { $0.id == id }), attempts[index].phase == phase
        else { return nil }
        return index
    }

    @discardableResult
    private mutating func record(at index: Int, status: Int?, chain: ErrorChain?, now: Duration) -> Int {
        history.append(
            AttemptRecord(
                number: attempts[index].id.attempt,
                status: status,
                chain: chain,
                delayBefore: attempts[index].delayBefore,
                duration: now - attempts[index].started
            ))
        return history.count - 1
    }

    /// The last attempt's failure as the call's cause: "retries exhausted" only when a handler
    /// was retrying this very failure (the attempt before failed with the same short chain and
    /// was recovered); a different last failure (503, then 404) is just itself. Short chains, not
    /// whole ones: a transport words one failure differently from attempt to attempt (libcurl's
    /// "after 0 ms", "after 1 ms").
    private func exhausted(_ error: any Error, recordIndex: Int) -> any Error {
        guard recordIndex > 0 else { return error }
        let previous = history[recordIndex - 1]
        let wasRecovering = previous.handler != nil && previous.error == history[recordIndex].error
        return wasRecovering ? RecoveryError(.retriesExhausted, cause: error) : error
    }

    private mutating func endUnlessInFlight(cause: any Error) {
        if inFlight == 0 { finish(.failure(cause: cause)) } else { endingCause = cause }
    }

    /// Ends the call with a failure no handler retries: as gRPC does with a fatal status, the
    /// hedges still out cannot change the outcome, so they are abandoned rather than waited for.
    private mutating func endAbandoningOthers(cause: any Error) {
        for loser in cancelOthers() { emit(.report(loser, .abandoned)) }
        finish(.failure(cause: cause))
    }

    /// Cancels every attempt still being prepared or sent, and returns them, oldest first.
    private mutating func cancelOthers() -> [AttemptID] {
        var cancelled: [AttemptID] = []
        for index in attempts.indices where attempts[index].phase == .preparing || attempts[index].phase == .sending {
            attempts[index].phase = .ended
            emit(.cancel(attempts[index].id))
            cancelled.append(attempts[index].id)
        }
        return cancelled
    }

    private mutating func cancelAll(cause: any Error) {
        for index in attempts.indices where attempts[index].phase != .ended {
            let id = attempts[index].id
            switch attempts[index].phase {
            case .recovering:
                // It failed; only the handlers' decision was cut short.
                let recordIndex = history.lastIndex { $0.number == id.attempt } ?? history.count - 1
                emit(.report(id, .failed(record: recordIndex)))
            case .sending:
                emit(.cancel(id))
                emit(.report(id, .cancelled))
            case .preparing, .ended:
                emit(.report(id, .cancelled))
            }
            attempts[index].phase = .ended
        }
        finish(.failure(cause: cause))
    }

    private mutating func finish(_ result: Result) {
        self.result = result
        emit(.finish)
    }
}
