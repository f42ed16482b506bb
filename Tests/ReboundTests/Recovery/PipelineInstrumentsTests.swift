import MetricsTestKit
import Testing

@testable import Rebound

@Suite struct PipelineInstrumentsTests {
    @Test func failureChainsKeepToTheirLimitWhenCallsFailAtOnce() async {
        // The limit was checked under one lock and the new series added under another: calls
        // failing at once with new chains could each pass the check and add a series.
        for _ in 0..<20 {
            let metrics = TestMetrics()
            let instruments = PipelineInstruments(factory: metrics)
            for index in 0..<(PipelineInstruments.maximumChains - 1) {
                instruments.recordFailure(chain: "AP1-NE\(index)")
            }
            await withTaskGroup(of: Void.self) { group in
                for index in 0..<50 { group.addTask { instruments.recordFailure(chain: "AP2-NE\(index)") } }
            }
            let chains = Set(
                metrics.counters.filter { $0.label == "rebound_failures_total" }
                    .compactMap { counter in counter.dimensions.first { $0.0 == "chain" }?.1 })
            // The limit's chains, and "other" for the rest.
            #expect(chains.count == PipelineInstruments.maximumChains + 1)
            #expect(chains.contains("other"))
        }
    }
}
