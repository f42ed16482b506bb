public import CoreMetrics
import Metrics

/// Counts occurrences in a swift-metrics counter per short chain: `rebound_nonfatal_total{chain=…}`.
///
/// Each report adds its ``NonFatalReport/occurrences``, so repeat summaries bring the counter up
/// to the real count. Drops reports count under `chain="RP1"`: the number of occurrences the
/// reporter dropped, visible on the same dashboard.
///
/// Chains are an open set and every distinct label value is a time series in the backend, so
/// only the first ``maximumChains`` distinct chains get their own counter; later ones count under
/// `chain="other"`.
public final class MetricsReportSink: ReportSink {
    /// The counter's label.
    static let label = "rebound_nonfatal_total"
    /// The label value of chains beyond ``maximumChains``.
    static let otherChains = "other"

    /// The most chains with a counter of their own.
    public let maximumChains: Int
    private let factory: any MetricsFactory
    private let counters = Locked<[String: Counter]>([:])

    /// Creates a sink that counts into `factory`.
    ///
    /// - Parameters:
    ///   - factory: Where counters are made; the process's `MetricsSystem` by default.
    ///   - maximumChains: The most chains with a counter of their own; 100 by default, twice what
    ///     one session may report (``NonFatalReporter/Configuration/maximumChainsPerSession``), and
    ///     few enough for any metrics backend.
    public init(factory: any MetricsFactory = MetricsSystem.factory, maximumChains: Int = 100) {
        self.factory = factory
        self.maximumChains = max(0, maximumChains)
    }

    public func receive(_ report: NonFatalReport) async throws {
        counter(for: report.chain).increment(by: report.occurrences)
    }

    private func counter(for chain: String) -> Counter {
        counters.withLock { counters in
            if let existing = counters[chain] { return existing }
            let label = counters.count < maximumChains ? chain : Self.otherChains
            if let existing = counters[label] { return existing }
            let counter = Counter(label: Self.label, dimensions: [("chain", label)], factory: factory)
            counters[label] = counter
            return counter
        }
    }
}
