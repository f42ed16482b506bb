import PropertyBased
import Rebound
import Testing

/// Property tests: whatever the sequence of occurrences, flushes and limits, every occurrence is in
/// exactly one bucket, and the reports' occurrences add up to what was sent and counted.
@Suite struct ReportStatisticsPropertyTests {
    /// A step: record the chain with this code (0...7), or flush (-1).
    static let steps = Gen.int(in: -1...7).array(of: 0...120)

    @Test func everyOccurrenceIsSentCountedOrDroppedAndTheCountsReachTheSinks() async {
        await propertyCheck(
            count: 100, input: Gen.int(in: 1...5), Gen.int(in: 1...4), Gen.int(in: 1...8), Self.steps
        ) { chainCap, reportCap, capacity, steps in
            let sink = RecordingReportSink()
            let reporter = ReportingFixture.reporter(
                [sink],
                configuration: ReportingFixture.configuration(
                    maximumChainsPerSession: chainCap, maximumReportsPerChain: reportCap, queueCapacity: capacity)
            )
            for step in steps {
                if step < 0 {
                    await reporter.flush()
                } else {
                    reporter.record(ReportingFixture.error(step))
                }
            }
            await reporter.shutdown()

            let statistics = reporter.statistics
            #expect(statistics.recorded == steps.filter { $0 >= 0 }.count)
            #expect(
                statistics.recorded
                    == statistics.sent + statistics.repeatsCounted + statistics.droppedByChainCap
                    + statistics.droppedBySessionCap + statistics.droppedByQueueFull)
            let reports = sink.reports
            let occurrenceReports = reports.filter { $0.kind == .occurrence }
            let repeatReports = reports.filter { $0.kind == .repeats }
            #expect(occurrenceReports.count == statistics.sent)
            #expect(repeatReports.count == statistics.repeatReports)
            #expect(repeatReports.map(\.occurrences).reduce(0, +) == statistics.repeatsCounted)
            #expect(Set(occurrenceReports.map(\.chain)).count <= chainCap)
            for (_, group) in Dictionary(grouping: reports.filter { $0.kind != .drops }, by: \.chain) {
                #expect(group.count <= reportCap)
            }
            // The drops reports' occurrences add up to every drop before the last flush's report.
            let reportedDrops = reports.filter { $0.kind == .drops }.map(\.occurrences).reduce(0, +)
            #expect(reportedDrops <= statistics.dropped)
            #expect(reports.map(\.sequence) == reports.map(\.sequence).sorted())
        }
    }
}
