import Rebound

/// What `rebound load --json` prints: one JSON object.
///
/// ```json
/// {"amplification":1.02,"attempts":1020,"breakerTransitions":[{"atSeconds":1.204,"from":"closed","to":"open"}],
///  "calls":1000,"elapsedSeconds":10.01,"failed":12,"failuresByChain":{"AP1-RE50":12},
///  "fastFailed":{"breaker":12,"bulkhead":0,"rateLimit":0},"hedges":0,
///  "latencySeconds":{"p50":0.0011,"p90":0.0018,"p99":0.0042},"succeeded":988}
/// ```
///
/// (on one line, keys sorted). Every key is always present.
struct LoadReport: Codable, Hashable {
    /// Attempts a protection refused before sending, by protection.
    struct FastFailed: Codable, Hashable {
        /// Refused by the open (or half-open) circuit breaker.
        var breaker: Int
        /// Refused by the adaptive rate limiter: the wait for a token would pass the deadline.
        var rateLimit: Int
        /// Refused by the concurrency limit: its queue was full, or no time was left.
        var bulkhead: Int
    }

    /// One change of the breaker's state.
    struct Transition: Codable, Hashable {
        /// Since the run started, in seconds.
        var atSeconds: Double
        /// `closed`, `open` or `halfOpen`.
        var from: String
        var to: String
    }

    /// Latency percentiles of the calls (waits and retries included), in seconds.
    struct Latency: Codable, Hashable {
        var p50: Double
        var p90: Double
        var p99: Double
    }

    var calls: Int
    var succeeded: Int
    var failed: Int
    /// Attempts sent to the server (not those refused before sending).
    var attempts: Int
    /// Attempts ÷ calls: how many requests each call cost the server; 0 without calls.
    var amplification: Double
    /// Attempts sent as hedges (`--hedge-after`), beside one still in flight; among ``attempts``.
    var hedges: Int
    var fastFailed: FastFailed
    /// Failed calls by their error's short chain, such as `AP1-RE50`.
    var failuresByChain: [String: Int]
    var breakerTransitions: [Transition]
    var latencySeconds: Latency
    /// From the first call's start to the last call's end, in seconds.
    var elapsedSeconds: Double
}

extension LoadReport {
    /// The report of a run that counted `tally` in `elapsed`.
    init(_ tally: LoadRecorder.Tally, elapsed: Duration) {
        let refused = tally.refusedByHandler
        self.init(
            calls: tally.calls,
            succeeded: tally.succeeded,
            failed: tally.failed,
            attempts: tally.attempts,
            amplification: tally.calls == 0 ? 0 : Double(tally.attempts) / Double(tally.calls),
            hedges: tally.hedges,
            fastFailed: FastFailed(
                breaker: refused[Self.handlerNames.breaker, default: 0],
                rateLimit: refused[Self.handlerNames.rateLimit, default: 0],
                bulkhead: refused[Self.handlerNames.bulkhead, default: 0]
            ),
            failuresByChain: tally.failuresByChain,
            breakerTransitions: tally.transitions.map {
                Transition(atSeconds: $0.at.secondsValue, from: $0.from.rawValue, to: $0.to.rawValue)
            },
            latencySeconds: Latency(
                p50: tally.latencies.percentile(0.5),
                p90: tally.latencies.percentile(0.9),
                p99: tally.latencies.percentile(0.99)
            ),
            elapsedSeconds: elapsed.secondsValue
        )
    }

    /// The names under which the pipeline reports each protection's refusals.
    private static let handlerNames = (
        breaker: CircuitBreakerHandler().name, rateLimit: AdaptiveRateLimitHandler.handlerName,
        bulkhead: ConcurrencyLimitHandler().name
    )

    /// The most failure chains the table lists; `--json` has them all.
    static let chainsShown = 5

    /// The report for a person:
    ///
    /// ```
    /// calls              1000 in 10.012 s
    /// succeeded           988
    /// failed               12  AP1-RE50 12
    /// attempts sent      1020  amplification 1.020, hedges 0
    /// refused attempts     12  breaker 12, rate limit 0, bulkhead 0
    /// latency                  p50 1.052 ms, p90 1.834 ms, p99 4.217 ms
    ///
    /// breaker    at  from    to
    ///         1.204  closed  open
    /// ```
    var lines: [String] {
        var table = TextTable([.left, .right, .left])
        let chains = failuresByChain.sorted { ($0.value, $1.key) > ($1.value, $0.key) }
        var failures = chains.prefix(Self.chainsShown).map { "\($0.key) \($0.value)" }.joined(separator: ", ")
        if chains.count > Self.chainsShown { failures += ", …" }
        let refused = fastFailed.breaker + fastFailed.rateLimit + fastFailed.bulkhead
        table.append(["calls", "\(calls)", "in \(elapsedSeconds.threeDecimals) s"])
        table.append(["succeeded", "\(succeeded)", ""])
        table.append(["failed", "\(failed)", failures])
        table.append([
            "attempts sent", "\(attempts)", "amplification \(amplification.threeDecimals), hedges \(hedges)",
        ])
        table.append([
            "refused attempts", "\(refused)",
            "breaker \(fastFailed.breaker), rate limit \(fastFailed.rateLimit), bulkhead \(fastFailed.bulkhead)",
        ])
        // In milliseconds: a loopback or LAN call, and an attempt refused in process, take less than one.
        let milliseconds = [latencySeconds.p50, latencySeconds.p90, latencySeconds.p99].map {
            ($0 * 1000).threeDecimals
        }
        table.append(["latency", "", "p50 \(milliseconds[0]) ms, p90 \(milliseconds[1]) ms, p99 \(milliseconds[2]) ms"])
        var lines = table.lines
        guard !breakerTransitions.isEmpty else { return lines }
        var transitions = TextTable([.left, .right, .left, .left])
        transitions.append(["breaker", "at", "from", "to"])
        for transition in breakerTransitions {
            transitions.append(["", "\(transition.atSeconds.threeDecimals) s", transition.from, transition.to])
        }
        lines.append("")
        lines += transitions.lines
        return lines
    }
}
