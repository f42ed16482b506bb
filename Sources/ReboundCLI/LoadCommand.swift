import ArgumentParser
import Rebound
import ReboundCurl

/// `rebound load URL`: many calls to one URL through the recovery pipeline and its overload
/// protections, over libcurl, as a load tool that recovers as an app would.
///
/// ```
/// LoadSchedule ─► workers ─► APIDataManager(handlers: [breaker?, limiter?, bulkhead?,
///   (closed or open loop)       │                     BackendTemporaryErrorHandler])
///                               │ over CurlTransport (a connection per call in flight)
///                               ▼
///          LoadRecorder: calls, chains, latencies; attempts sent and refused (APIEventMonitor);
///                        the breaker's transitions
///                               ▼
///          a table on stdout, or one JSON object (--json); a progress line on a terminal
/// ```
struct LoadCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "load",
        abstract: "Drive a URL with many calls through Rebound's recovery pipeline and its overload protections.",
        discussion: """
            Each call is a GET through BackendTemporaryErrorHandler over libcurl, as in fetch, and all \
            calls share one pipeline: one retry budget, and the protections asked for. --breaker puts \
            a CircuitBreakerHandler first (per host: 50 % failures of the last 20 attempts open it for \
            5 s), --rate-limit adaptive an AdaptiveRateLimitHandler (a token bucket that slows down \
            on 429), --max-in-flight a ConcurrencyLimitHandler (that many attempts at once, 64 more \
            queued). Attempts they refuse are not sent and are counted by kind. --hedge-after S \
            hedges each call (HedgingPolicy): when its attempt has not answered after S seconds, a \
            second goes out beside it, the first answer wins and the other is cancelled; hedges \
            count as attempts, and the transport gets a connection per attempt in flight.

            --concurrency N keeps N calls in flight (a closed loop: a call starts when another \
            ends). --rate R starts R calls a second whatever their outcome (an open loop), with at \
            most 1,000 in flight: a call due while 1,000 are running starts when one ends, and its \
            latency counts from when it was due. The run ends after --requests calls, or once no \
            call is due within --duration seconds; calls in flight then finish.

            At the end a table goes to stdout: calls, how they ended (failures by short chain), \
            the attempts sent and their ratio to calls (amplification), the attempts refused by \
            kind, the breaker's transitions and the latency percentiles. With --json, one JSON \
            object instead (see docs/cli.md). A progress line is shown on stderr when it is a \
            terminal.

            Examples:
              rebound load --concurrency 20 --requests 1000 http://127.0.0.1:8080/tasks
              rebound load --rate 200 --duration 30 --breaker http://127.0.0.1:8080/tasks
              rebound load --rate 500 --duration 10 --rate-limit adaptive --json URL
              rebound load --rate 200 --duration 30 --hedge-after 0.1 http://127.0.0.1:8080/tasks

            Exit status: 0 every call succeeded, 1 at least one failed, 64 invalid arguments.
            """
    )

    /// The range of `--concurrency`.
    static let concurrencyRange = 1...1_000
    /// The highest `--rate`, in calls a second.
    static let highestRate = 10_000.0
    /// The lowest `--rate`: a call every 11.6 days. Far lower, a call's due time overflows a
    /// `Duration` (1e-30: 10^30 seconds).
    static let lowestRate = 0.000_001
    /// The range of `--requests`: the histogram keeps memory bounded, this keeps the run finite.
    static let requestRange = 1...100_000_000
    /// The range of `--max-in-flight`.
    static let maxInFlightRange = 1...1_000
    /// The calls kept in flight, and made, when neither a pace nor a stop is given.
    static let defaultConcurrency = 10
    static let defaultRequests = 100

    /// How `--rate-limit` limits.
    enum RateLimitMode: String, ExpressibleByArgument, CaseIterable {
        /// ``AdaptiveRateLimitHandler`` with its defaults.
        case adaptive
    }

    @Argument(help: "The http or https URL to request (GET).")
    var url: String

    @Option(
        help: ArgumentHelp(
            "Calls kept in flight: a closed loop (1–1000; default \(defaultConcurrency) unless --rate).",
            valueName: "n"))
    var concurrency: Int?

    @Option(
        help: ArgumentHelp(
            "Calls started per second whatever their outcome: an open loop, at most 1,000 in flight (0.000001 to 10000).",
            valueName: "calls-per-second"))
    var rate: Double?

    @Option(
        help: ArgumentHelp(
            "How many calls to make (default \(defaultRequests) unless --duration).", valueName: "n"))
    var requests: Int?

    @Option(help: ArgumentHelp("Start calls for this many seconds.", valueName: "seconds"))
    var duration: Double?

    @Flag(help: "Put a circuit breaker (CircuitBreakerHandler, its defaults) in front of the calls.")
    var breaker = false

    @Option(help: "Limit the rate client-side: adaptive, AdaptiveRateLimitHandler with its defaults.")
    var rateLimit: RateLimitMode?

    @Option(
        help: ArgumentHelp(
            "At most this many attempts in flight, 64 more queued (ConcurrencyLimitHandler; 1–1000).",
            valueName: "n"))
    var maxInFlight: Int?

    @Option(
        help: ArgumentHelp(
            "Hedge each call: another attempt when none answered within this many seconds (0.001–60).",
            valueName: "seconds"))
    var hedgeAfter: Double?

    @OptionGroup(title: "Retry policy")
    var policy: RetryPolicyOptions

    @OptionGroup
    var timeLimits: RequestLimitOptions

    @Flag(help: "Print one JSON object on stdout instead of the table.")
    var json = false

    func validate() throws {
        _ = try FetchTarget(url)
        _ = try pace()
        _ = try stop()
        if let maxInFlight, !Self.maxInFlightRange.contains(maxInFlight) {
            throw ValidationError(
                "--max-in-flight must be from \(Self.maxInFlightRange.lowerBound) to \(Self.maxInFlightRange.upperBound) (got \(maxInFlight))."
            )
        }
        _ = try hedging()
    }

    func run() async throws {
        let target = try FetchTarget(url)
        let clock = ContinuousClock()
        let schedule = LoadSchedule(pace: try pace(), stop: try stop(), start: clock.now)
        let run = LoadRun(
            target: target, schedule: schedule, handlers: handlers(recordingTransitionsIn:),
            limits: timeLimits.limits(maxAttempts: policy.maxAttempts), hedging: try hedging())
        let report = try await run.perform(showingProgress: ProgressLine())
        if json {
            StandardStreams.writeOutput(try JSONOutput.line(report))
        } else {
            StandardStreams.writeOutput(line: "GET \(target.shown)")
            for line in report.lines { StandardStreams.writeOutput(line: line) }
        }
        if report.failed > 0 { throw ExitCode.failure }
    }

    // MARK: - The arguments

    private func pace() throws(ValidationError) -> LoadSchedule.Pace {
        switch (concurrency, rate) {
        case (.some, .some):
            throw ValidationError("Give --concurrency (a closed loop) or --rate (an open loop), not both.")
        case (let concurrency?, nil):
            guard Self.concurrencyRange.contains(concurrency) else {
                throw ValidationError(
                    "--concurrency must be from \(Self.concurrencyRange.lowerBound) to \(Self.concurrencyRange.upperBound) (got \(concurrency))."
                )
            }
            return .concurrency(concurrency)
        case (nil, let rate?):
            guard rate.isFinite, rate >= Self.lowestRate, rate <= Self.highestRate else {
                throw ValidationError(
                    "--rate must be a number of calls per second from 0.000001 and up to \(Int(Self.highestRate)) (got \(rate))."
                )
            }
            return .rate(rate)
        case (nil, nil):
            return .concurrency(Self.defaultConcurrency)
        }
    }

    private func stop() throws(ValidationError) -> LoadSchedule.Stop {
        switch (requests, duration) {
        case (.some, .some):
            throw ValidationError("Give --requests (a number of calls) or --duration (a time), not both.")
        case (let requests?, nil):
            guard Self.requestRange.contains(requests) else {
                throw ValidationError(
                    "--requests must be from \(Self.requestRange.lowerBound) to \(Self.requestRange.upperBound) (got \(requests))."
                )
            }
            return .afterCalls(requests)
        case (nil, let duration?):
            try RetryPolicyOptions.validateSeconds(duration, option: "--duration", allowsZero: false)
            return .afterDuration(Duration(roundingSeconds: duration))
        case (nil, nil):
            return .afterCalls(Self.defaultRequests)
        }
    }

    /// The hedging of `--hedge-after`: a fixed delay, one hedge.
    private func hedging() throws(ValidationError) -> HedgingPolicy? {
        guard let hedgeAfter else { return nil }
        guard hedgeAfter.isFinite, Self.hedgeDelayRange.contains(hedgeAfter) else {
            throw ValidationError("--hedge-after must be a number of seconds from 0.001 to 60 (got \(hedgeAfter)).")
        }
        return HedgingPolicy(delay: .fixed(Duration(roundingSeconds: hedgeAfter)))
    }

    /// The range of `--hedge-after`, in seconds: below a millisecond every call would be hedged
    /// at once; above a minute, none within the attempt timeout.
    static let hedgeDelayRange = 0.001...60.0

    /// The handler list, in the order docs/resilience.md gives: the breaker first, so that a
    /// refused attempt costs nothing else, then the limiter and the bulkhead, then the retries.
    private func handlers(recordingTransitionsIn recorder: LoadRecorder) -> [any RecoverableErrorHandler] {
        var handlers: [any RecoverableErrorHandler] = []
        if breaker {
            let time = TimeSource.system
            let onTransition: @Sendable (CircuitBreakerHandler.Transition) -> Void = {
                recorder.recordTransition($0, now: time.now())
            }
            handlers.append(
                policy.seed.map {
                    // Its own stream of the seed, so that the breaks' jitter does not shift the waits'.
                    CircuitBreakerHandler(random: SeededRandom(seed: $0 &+ 1), onTransition: onTransition)
                } ?? CircuitBreakerHandler(onTransition: onTransition))
        }
        if rateLimit == .adaptive { handlers.append(AdaptiveRateLimitHandler()) }
        if let maxInFlight {
            handlers.append(ConcurrencyLimitHandler(configuration: .init(maxInFlight: maxInFlight)))
        }
        let retries = BackendTemporaryErrorHandler.Configuration(backoff: policy.backoff)
        handlers.append(
            policy.seed.map { BackendTemporaryErrorHandler(configuration: retries, random: SeededRandom(seed: $0)) }
                ?? BackendTemporaryErrorHandler(configuration: retries))
        return handlers
    }
}
