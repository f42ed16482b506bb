public import Prometheus
import Rebound

/// How Rebound's metrics look to Prometheus: the names, and the buckets of the request-duration
/// histogram.
///
/// ```swift
/// let registry = PrometheusCollectorRegistry()
/// MetricsSystem.bootstrap(PrometheusExport.makeFactory(registry: registry))
/// let endpoint = try await PrometheusEndpoint.start(registry: registry, port: 9464)
/// ```
///
/// swift-prometheus turns every character a Prometheus name cannot hold into `_`, so
/// `rebound_failures_total` stays as it is and a dimension `http.request.method` becomes the label
/// `http_request_method`. A few names get the unit suffix Prometheus expects (``names``), such as
/// `http.client.request.duration`, which becomes `http_client_request_duration_seconds`.
public enum PrometheusExport {
    /// The bucket boundaries of `http.client.request.duration`, in seconds: those OpenTelemetry's
    /// HTTP-client conventions advise. They are also the boundaries of every other timer, so that
    /// all durations Rebound records can be compared bucket for bucket; the OTLP export uses the
    /// same (`TelemetryBuckets`).
    public static let requestDurationBuckets = TelemetryBuckets.requestDurationSeconds

    /// The swift-metrics labels that get another name in Prometheus, by label.
    public static let names: [String: String] = [
        "http.client.request.duration": "http_client_request_duration_seconds"
    ]

    /// A factory that registers metrics in `registry`, under ``names`` and with
    /// ``requestDurationBuckets``.
    ///
    /// - Parameter registry: Where the metrics are kept; ``PrometheusEndpoint`` serves it.
    /// - Returns: The factory, for `MetricsSystem.bootstrap` or a data manager's `metricsFactory`.
    public static func makeFactory(registry: PrometheusCollectorRegistry) -> PrometheusMetricsFactory {
        var factory = PrometheusMetricsFactory(registry: registry)
        let durations = requestDurationBuckets.map { Duration.nanoseconds(Int64(($0 * 1e9).rounded())) }
        factory.defaultDurationHistogramBuckets = durations
        // Looked up by the name after renaming; a recorder of seconds gets the same buckets.
        for name in names.values {
            factory.durationHistogramBuckets[name] = durations
            factory.valueHistogramBuckets[name] = requestDurationBuckets
        }
        factory.nameAndLabelSanitizer = { name, labels in (names[name] ?? name, labels) }
        return factory
    }
}
