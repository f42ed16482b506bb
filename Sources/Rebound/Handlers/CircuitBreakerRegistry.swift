import CoreMetrics

/// The circuits of one ``CircuitBreakerHandler``, as a pure state machine: events in (an attempt
/// asks to go, an attempt ended, a person isolates or resets), decisions and transitions out. No
/// I/O, no clock: the handler passes the time, and logs and counts what comes out. The one thing it
/// records itself is each circuit's state in its gauge, under the handler's lock, so that it
/// follows the changes in their order; it also keeps each circuit's counters, which the handler
/// increments, so that a forgotten circuit's series all go with it.
struct CircuitBreakerRegistry {
    /// One key's circuit.
    ///
    /// An object, so that a ticket reaches its circuit without another lookup and every change is
    /// made in place (a copy taken out of the dictionary would copy its window at the first
    /// write). The registry that holds the circuits lives in its handler's lock and is never
    /// copied.
    final class Circuit {
        enum Phase: Equatable {
            case closed
            /// Open until `until`, on the pipeline's monotonic clock.
            case open(until: Duration)
            /// `inFlight` probes out, `succeeded` of this half-open period's probes succeeded.
            case halfOpen(inFlight: Int, succeeded: Int)
            case isolated
        }

        let key: String
        var phase: Phase = .closed
        /// The last attempts' results while closed (`true`: failed), a ring of `windowSize`.
        var window: [Bool] = []
        var nextSlot = 0
        var failures = 0
        /// Failed probes in a row since the circuit last closed.
        var failedProbes = 0
        /// Changes with every transition (and when the circuit is forgotten), so that results of
        /// attempts let through in an earlier phase are not counted in this one.
        var generation: UInt64
        /// When the circuit was last used, in the registry's ticks: for eviction.
        var lastUsed: UInt64

        init(key: String, generation: UInt64, lastUsed: UInt64) {
            self.key = key
            self.generation = generation
            self.lastUsed = lastUsed
        }

        var state: CircuitBreakerHandler.State {
            switch phase {
            case .closed: .closed
            case .open: .open
            case .halfOpen: .halfOpen
            case .isolated: .isolated
            }
        }

        func record(failed: Bool, windowSize: Int) {
            if window.count < windowSize {
                window.append(failed)
            } else {
                if window[nextSlot] { failures -= 1 }
                window[nextSlot] = failed
            }
            nextSlot = (nextSlot + 1) % windowSize
            if failed { failures += 1 }
        }

        func clearWindow() {
            window.removeAll(keepingCapacity: true)
            nextSlot = 0
            failures = 0
        }
    }

    /// What an attempt let through holds until its outcome comes.
    struct Ticket {
        let circuit: Circuit
        let generation: UInt64
    }

    enum Admission: Equatable {
        case allowed
        /// Refused while open (or half-open with every probe out): the next probe may go in
        /// `retryAfter`.
        case open(retryAfter: Duration)
        case isolated
    }

    /// How an attempt ended, for the breaker.
    enum Result {
        case success
        case failure
        /// Neither: refused, cancelled, abandoned, or an answer that says nothing about the
        /// service's health (429). A probe's slot is given back.
        case ignored
    }

    let configuration: CircuitBreakerHandler.Configuration
    private(set) var circuits: [String: Circuit] = [:]
    private(set) var tickets: [AttemptID: Ticket] = [:]
    private var random: any RandomNumberGenerator & Sendable
    private var ticks: UInt64 = 0
    private var generations: UInt64 = 0
    /// Each remembered circuit's state (``CircuitBreakerHandler/State/gaugeValue``) and counters;
    /// `nil` without a metrics backend.
    private var series: KeyedSeries?

    init(
        configuration: CircuitBreakerHandler.Configuration, random: any RandomNumberGenerator & Sendable,
        series: KeyedSeries? = nil
    ) {
        self.configuration = configuration
        self.random = random
        self.series = series
    }

    /// `key`'s counter `label`, made on first use; `nil` without a metrics backend, or when the
    /// circuit was forgotten meanwhile (its series went with it).
    mutating func counter(_ label: String, for key: String, _ dimensions: [(String, String)] = []) -> Counter? {
        guard circuits[key] != nil else { return nil }
        return series?.counter(label, for: key, dimensions)
    }

    /// Whether attempt `id` may go to `key` at `now`; the transition it caused, if any (an open
    /// circuit whose break is over turns half-open). `now` is read only while the circuit is open.
    mutating func admit(
        _ id: AttemptID, key: String, now readNow: @autoclosure () -> Duration
    ) -> (Admission, CircuitBreakerHandler.Transition?) {
        let circuit = self.circuit(for: key)
        switch circuit.phase {
        case .closed:
            tickets[id] = Ticket(circuit: circuit, generation: circuit.generation)
            return (.allowed, nil)
        case .open(let until):
            let now = readNow()
            guard now >= until else { return (.open(retryAfter: until - now), nil) }
            let transition = move(circuit, to: .halfOpen(inFlight: 0, succeeded: 0), at: now)
            return (admitProbe(id, to: circuit), transition)
        case .halfOpen:
            return (admitProbe(id, to: circuit), nil)
        case .isolated:
            return (.isolated, nil)
        }
    }

    /// Lets attempt `id` through as a probe of the half-open `circuit`, if a probe's slot is free.
    private mutating func admitProbe(_ id: AttemptID, to circuit: Circuit) -> Admission {
        // Only a half-open circuit is asked; it refuses once every probe's slot is taken.
        guard case .halfOpen(let inFlight, let succeeded) = circuit.phase, inFlight < configuration.probeCount else {
            // Every probe is out; if they fail, the next goes after the following break.
            return .open(retryAfter: configuration.breakDuration(afterFailedProbes: circuit.failedProbes + 1))
        }
        circuit.phase = .halfOpen(inFlight: inFlight + 1, succeeded: succeeded)
        tickets[id] = Ticket(circuit: circuit, generation: circuit.generation)
        return .allowed
    }

    /// Hears how attempt `id` ended; the transition it caused, if any. `now` is read only when
    /// the circuit changes state.
    mutating func end(
        _ id: AttemptID, _ result: Result, now readNow: @autoclosure () -> Duration
    ) -> CircuitBreakerHandler.Transition? {
        guard let ticket = tickets.removeValue(forKey: id) else { return nil }
        let circuit = ticket.circuit
        guard circuit.generation == ticket.generation else { return nil }
        switch circuit.phase {
        case .closed:
            guard result != .ignored else { return nil }
            circuit.record(failed: result == .failure, windowSize: configuration.windowSize)
            // Only a failure opens a circuit (with a ratio of 0, successes alone would).
            let count = circuit.window.count
            guard result == .failure, count >= configuration.minimumAttempts,
                Double(circuit.failures) >= configuration.failureRatio * Double(count)
            else { return nil }
            return open(circuit, now: readNow())
        case .halfOpen(let inFlight, let succeeded):
            switch result {
            case .ignored:
                circuit.phase = .halfOpen(inFlight: inFlight - 1, succeeded: succeeded)
                return nil
            case .failure:
                circuit.failedProbes += 1
                return open(circuit, now: readNow())
            case .success:
                guard succeeded + 1 >= configuration.probeCount else {
                    circuit.phase = .halfOpen(inFlight: inFlight - 1, succeeded: succeeded + 1)
                    return nil
                }
                circuit.failedProbes = 0
                circuit.clearWindow()
                return move(circuit, to: .closed, at: readNow())
            }
        case .open, .isolated:
            return nil
        }
    }

    /// Forces `key`'s circuit open until ``reset(_:)``.
    mutating func isolate(_ key: String) -> CircuitBreakerHandler.Transition? {
        let circuit = self.circuit(for: key)
        guard circuit.phase != .isolated else { return nil }
        return move(circuit, to: .isolated, at: nil)
    }

    /// Closes `key`'s circuit and forgets its window and failed probes.
    mutating func reset(_ key: String) -> CircuitBreakerHandler.Transition? {
        guard let circuit = circuits[key] else { return nil }
        circuit.failedProbes = 0
        circuit.clearWindow()
        return move(circuit, to: .closed, at: nil)
    }

    /// `key`'s circuit, or a new closed one (making room for it first).
    private mutating func circuit(for key: String) -> Circuit {
        ticks += 1
        if let circuit = circuits[key] {
            circuit.lastUsed = ticks
            return circuit
        }
        if circuits.count >= configuration.maximumKeys { evict() }
        generations += 1
        let circuit = Circuit(key: key, generation: generations, lastUsed: ticks)
        circuits[key] = circuit
        series?.record(CircuitBreakerHandler.State.closed.gaugeValue, for: key)
        return circuit
    }

    /// Forgets the least recently used closed circuit; when none is closed, the least recently
    /// used that is not isolated; when all are isolated, the least recently used. Attempts it
    /// let through count nothing when they end.
    private mutating func evict() {
        let victim =
            circuits.values.filter { $0.phase == .closed }.min { $0.lastUsed < $1.lastUsed }
            ?? circuits.values.filter { $0.phase != .isolated }.min { $0.lastUsed < $1.lastUsed }
            ?? circuits.values.min { $0.lastUsed < $1.lastUsed }
        guard let victim else { return }
        circuits[victim.key] = nil
        generations += 1
        victim.generation = generations
        series?.forget(victim.key)
    }

    private mutating func open(_ circuit: Circuit, now: Duration) -> CircuitBreakerHandler.Transition {
        let duration = configuration.jitteredBreakDuration(afterFailedProbes: circuit.failedProbes, using: &random)
        return move(circuit, to: .open(until: now + duration), at: now)
    }

    private mutating func move(
        _ circuit: Circuit, to phase: Circuit.Phase, at now: Duration?
    ) -> CircuitBreakerHandler.Transition {
        let from = circuit.state
        circuit.phase = phase
        series?.record(circuit.state.gaugeValue, for: circuit.key)
        generations += 1
        circuit.generation = generations
        var breakDuration: Duration?
        if case .open(let until) = phase, let now { breakDuration = until - now }
        return CircuitBreakerHandler.Transition(
            key: circuit.key, from: from, to: circuit.state, at: now, breakDuration: breakDuration,
            failedProbes: circuit.failedProbes)
    }
}
