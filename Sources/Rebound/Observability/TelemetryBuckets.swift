/// The bucket boundaries Rebound's exporters give duration histograms.
///
/// `ReboundOTel` and `ReboundPrometheus` both use them, so that an OTLP collector and Prometheus
/// see the same buckets for `http.client.request.duration` and for every other timer.
public enum TelemetryBuckets {
    /// The boundaries, in seconds, that OpenTelemetry's HTTP-client conventions advise for
    /// `http.client.request.duration`: from 5 ms to 10 s.
    public static let requestDurationSeconds: [Double] = [
        0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10,
    ]
}
