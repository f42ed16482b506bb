import Rebound

/// What `rebound load` counts while it runs: the calls' outcomes and latencies, the attempts the
/// pipeline sent or refused (as its ``APIEventMonitor``), and the breaker's transitions.
///
/// Workers, the pipeline and the breaker report from many tasks at once; everything is kept
/// under one lock, in memory bounded whatever the run's length (a latency histogram, a count per
/// chain, at most ``maximumTransitions`` transitions).
final class LoadRecorder: APIEventMonitor {
    /// The most breaker transitions kept; later ones are left out.
    ///
    /// A circuit changes state at most once per probe and break (seconds apart), so a run would
    /// need hours to reach it.
    static let maximumTransitions = 1_000

    /// One change of the breaker's state.
    struct Transition: Hashable, Sendable {
        /// Since the run started.
        var at: Duration
        var from: CircuitBreakerHandler.State
        var to: CircuitBreakerHandler.State
    }

    /// Everything counted so far.
    struct Tally: Sendable {
        var calls = 0
        var succeeded = 0
        var failuresByChain: [String: Int] = [:]
        /// Attempts that went to the transport.
        var attempts = 0
        /// Attempts sent beside another still in flight (hedges).
        var hedges = 0
        /// Hedges begun and not yet sent, by call and attempt: one the call's first answer ends
        /// while its handlers prepare it is never sent, and is not counted.
        var hedgesPreparing: Set<AttemptID> = []
        /// Attempts a handler refused before sending, by the handler's name.
        var refusedByHandler: [String: Int] = [:]
        var transitions: [Transition] = []
        var latencies = LatencyHistogram()

        var failed: Int { calls - succeeded }
    }

    private let tally = Locked(Tally())
    /// The pipeline's time (``TimeSource/now``) when the run started, for the transitions' times.
    private let pipelineStart: Duration

    init(pipelineStart: Duration) {
        self.pipelineStart = pipelineStart
    }

    /// A snapshot of the counts.
    var current: Tally { tally.withLock { $0 } }

    /// Counts a call that ended, after `latency`, with `failure`'s chain or none.
    func recordCall(latency: Duration, failure: ErrorChain?) {
        tally.withLock { tally in
            tally.calls += 1
            tally.latencies.record(latency.secondsValue)
            if let failure {
                tally.failuresByChain[failure.short, default: 0] += 1
            } else {
                tally.succeeded += 1
            }
        }
    }

    /// Keeps a change of the breaker's state.
    func recordTransition(_ transition: CircuitBreakerHandler.Transition, now: Duration) {
        let at = (transition.at ?? now) - pipelineStart
        tally.withLock { tally in
            guard tally.transitions.count < Self.maximumTransitions else { return }
            tally.transitions.append(Transition(at: max(.zero, at), from: transition.from, to: transition.to))
        }
    }

    func receive(_ event: APIEvent) {
        let hedge = AttemptID(call: event.call, attempt: event.attempt ?? 0)
        switch event.kind {
        case .attemptSent:
            tally.withLock { tally in
                tally.attempts += 1
                if tally.hedgesPreparing.remove(hedge) != nil { tally.hedges += 1 }
            }
        case .hedging:
            tally.withLock { _ = $0.hedgesPreparing.insert(hedge) }
        case .attemptAbandoned:
            tally.withLock { _ = $0.hedgesPreparing.remove(hedge) }
        case .callSucceeded, .callFailed:
            // Whatever of the call was still being prepared (a cancelled call's hedge) goes too.
            tally.withLock { tally in
                if !tally.hedgesPreparing.isEmpty {
                    tally.hedgesPreparing = tally.hedgesPreparing.filter { $0.call != event.call }
                }
            }
        case .attemptRefused:
            tally.withLock { tally in
                tally.hedgesPreparing.remove(hedge)
                // An attempt the deadline ended before it was sent has no handler: no protection refused it.
                if let handler = event.handler { tally.refusedByHandler[handler, default: 0] += 1 }
            }
        default:
            return
        }
    }
}
