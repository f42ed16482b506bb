import CoreMetrics

/// The swift-metrics series of a handler's bounded registry (a circuit, a bucket), each with a
/// dimension `key`: a gauge per key, and counters per key. The series of a key the registry
/// forgets are destroyed with it, so that a backend never goes on reporting a key nobody keeps,
/// and the series stay as few as the registry's keys, however many keys come and go.
///
/// Not thread-safe: the registry that holds it records under its own lock, so that the values
/// follow the registry's changes in their order.
struct KeyedSeries {
    let gaugeLabel: String
    private let factory: any MetricsFactory
    private var gauges: [String: Gauge] = [:]
    /// Each key's counters, by their label and other dimensions.
    private var counters: [String: [CounterName: Counter]] = [:]

    /// A counter's label and its dimensions besides `key`.
    private struct CounterName: Hashable {
        let label: String
        let dimensions: [String]
    }

    init(gaugeLabel: String, factory: any MetricsFactory) {
        self.gaugeLabel = gaugeLabel
        self.factory = factory
    }

    /// Sets `key`'s gauge to `value`, making it on the first value.
    mutating func record(_ value: Double, for key: String) {
        if let gauge = gauges[key] {
            gauge.record(value)
            return
        }
        let gauge = Gauge(label: gaugeLabel, dimensions: [("key", key)], factory: factory)
        gauges[key] = gauge
        gauge.record(value)
    }

    /// `key`'s counter `label` with these dimensions besides `key`, made on first use.
    mutating func counter(_ label: String, for key: String, _ dimensions: [(String, String)] = []) -> Counter {
        let name = CounterName(label: label, dimensions: dimensions.flatMap { [$0.0, $0.1] })
        if let counter = counters[key]?[name] { return counter }
        let counter = Counter(label: label, dimensions: [("key", key)] + dimensions, factory: factory)
        counters[key, default: [:]][name] = counter
        return counter
    }

    /// Destroys `key`'s series, if it has any.
    mutating func forget(_ key: String) {
        gauges.removeValue(forKey: key)?.destroy()
        if let forgotten = counters.removeValue(forKey: key) {
            for counter in forgotten.values { counter.destroy() }
        }
    }
}
