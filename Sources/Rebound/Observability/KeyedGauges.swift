import CoreMetrics

/// One swift-metrics `Gauge` per key of a handler's bounded registry (a circuit, a bucket), with a
/// dimension `key`: the series of a key the registry forgets is destroyed with it, so that a
/// backend never goes on reporting the last value of a key nobody keeps, and the series stay as
/// few as the registry's keys.
///
/// Not thread-safe: the registry that holds it records under its own lock, so that the values
/// follow the registry's changes in their order.
struct KeyedGauges {
    let label: String
    private let factory: any MetricsFactory
    private var gauges: [String: Gauge] = [:]

    init(label: String, factory: any MetricsFactory) {
        self.label = label
        self.factory = factory
    }

    /// Sets `key`'s series to `value`, making it on the first value.
    mutating func record(_ value: Double, for key: String) {
        if let gauge = gauges[key] {
            gauge.record(value)
            return
        }
        let gauge = Gauge(label: label, dimensions: [("key", key)], factory: factory)
        gauges[key] = gauge
        gauge.record(value)
    }

    /// Destroys `key`'s series, if it has one.
    mutating func forget(_ key: String) {
        gauges.removeValue(forKey: key)?.destroy()
    }
}
