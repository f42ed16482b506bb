import CoreMetrics
import Metrics

/// The pipeline's metrics, created once per label set and reused on every call.
///
/// | metric | dimensions |
/// |---|---|
/// | `rebound_attempts_total` | `endpoint` (the endpoint's error-code name), `outcome` (`success`, `failure`) |
/// | `rebound_recoveries_total` | `handler` |
/// | `rebound_failures_total` | `chain` (the short chain) |
/// | `rebound_stale_answers_total` | `handler`: calls that failed and were answered with an earlier answer |
/// | `rebound_retry_delay_seconds` (a `Timer`) | none: the wait before each retry |
/// | `http.client.request.duration` (a `Timer`: seconds) | `http.request.method`, `server.address`, `server.port`, `http.response.status_code`, `error.type` |
///
/// Chains are an open set, so at most ``maximumChains`` distinct chains get their own counter;
/// further ones are counted under `chain="other"`, keeping the metric's cardinality bounded.
final class PipelineInstruments: Sendable {
    static let maximumChains = 200

    private struct Counters {
        var successes: [String: Counter] = [:]
        var attempts: [String: Counter] = [:]
        var recoveries: [String: Counter] = [:]
        var failures: [String: Counter] = [:]
        var staleAnswers: [String: Counter] = [:]
        var durations: [DurationKey: Timer] = [:]
    }

    /// The attributes of one `http.client.request.duration` series.
    private struct DurationKey: Hashable {
        var method: String
        var address: String
        var port: Int
        var status: Int?
        var errorType: String?
    }

    private let counters = Locked(Counters())
    private let factory: any MetricsFactory
    /// The wait before each retry.
    private let retryDelay: Timer?
    /// Whether metrics go anywhere: with swift-metrics' no-op factory, counting is skipped altogether.
    let isEnabled: Bool

    init(factory: any MetricsFactory) {
        self.factory = factory
        isEnabled = !(factory is NOOPMetricsHandler)
        retryDelay = isEnabled ? Timer(label: "rebound_retry_delay_seconds", factory: factory) : nil
    }

    /// Records the wait before a retry.
    func recordRetryDelay(_ delay: Duration) {
        retryDelay?.record(duration: delay)
    }

    func recordAttempt(endpoint: @autoclosure () -> String, succeeded: Bool) {
        guard isEnabled else { return }
        let endpoint = endpoint()
        counter(succeeded ? \.successes : \.attempts, endpoint) {
            Counter(
                label: "rebound_attempts_total",
                dimensions: [("endpoint", endpoint), ("outcome", succeeded ? "success" : "failure")],
                factory: factory
            )
        }.increment()
    }

    func recordRecovery(handler: String) {
        guard isEnabled else { return }
        counter(\.recoveries, handler) {
            Counter(label: "rebound_recoveries_total", dimensions: [("handler", handler)], factory: factory)
        }.increment()
    }

    func recordStaleAnswer(handler: String) {
        guard isEnabled else { return }
        counter(\.staleAnswers, handler) {
            Counter(label: "rebound_stale_answers_total", dimensions: [("handler", handler)], factory: factory)
        }.increment()
    }

    func recordFailure(chain: String) {
        guard isEnabled else { return }
        // The limit is checked and the series added under one lock, so calls failing at once
        // with new chains cannot each pass the check.
        counters.withLock { counters in
            let isKnown = counters.failures[chain] != nil
            let label = isKnown || counters.failures.count < Self.maximumChains ? chain : "other"
            if let existing = counters.failures[label] { return existing }
            let created = Counter(label: "rebound_failures_total", dimensions: [("chain", label)], factory: factory)
            counters.failures[label] = created
            return created
        }.increment()
    }

    /// Records one attempt's `http.client.request.duration` (OpenTelemetry's HTTP-client metric),
    /// with the conventions' attributes: `http.response.status_code` only when a response came,
    /// `error.type` only when the attempt failed.
    func recordRequestDuration(
        _ duration: Duration, method: String, server: (address: String, port: Int), status: Int?, errorType: String?
    ) {
        guard isEnabled else { return }
        let key = DurationKey(
            method: method, address: server.address, port: server.port, status: status, errorType: errorType)
        let timer =
            counters.withLock { $0.durations[key] }
            ?? {
                var dimensions = [
                    ("http.request.method", method), ("server.address", server.address),
                    ("server.port", String(server.port)),
                ]
                if let status { dimensions.append(("http.response.status_code", String(status))) }
                if let errorType { dimensions.append(("error.type", errorType)) }
                let created = Timer(label: "http.client.request.duration", dimensions: dimensions, factory: factory)
                return counters.withLock { counters in
                    if let existing = counters.durations[key] { return existing }
                    counters.durations[key] = created
                    return created
                }
            }()
        timer.record(duration: duration)
    }

    private func counter(
        _ table: WritableKeyPath<Counters, [String: Counter]>,
        _ key: String,
        make: () -> Counter
    ) -> Counter {
        if let existing = counters.withLock({ $0[keyPath: table][key] }) { return existing }
        let created = make()
        return counters.withLock { counters in
            if let existing = counters[keyPath: table][key] { return existing }
            counters[keyPath: table][key] = created
            return created
        }
    }
}
