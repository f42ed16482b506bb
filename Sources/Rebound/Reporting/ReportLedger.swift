#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The bookkeeping of one session: which chains were reported, their uncounted repeats, and the
/// statistics.
///
/// Pure: no lock, no queue, no clock. The reporter holds it under its lock, so that deciding about
/// an occurrence and queueing its report are one step; when the queue refuses a report, the
/// reporter tells the ledger, which moves the occurrence to the right bucket.
///
/// ```
/// occurrence ──▶ chain reported before? ──yes──▶ reports < maximumReportsPerChain? ──yes──▶ counted
///                    │                                        │
///                    no                                       no ──▶ dropped by chain cap
///                    ▼
///          chains < maximumChainsPerSession? ──no──▶ dropped by session cap
///                    │
///                   yes ──▶ sent (first occurrence report) ──queue full──▶ dropped by queue full
/// ```
///
/// A repeat is counted only while its chain has a report left, so the counts always have a
/// report to travel in: the next ``repeatSummaries()``.
struct ReportLedger {
    /// One chain's state in the session.
    struct ChainRecord {
        /// Reports made for the chain: its first occurrence and repeat summaries.
        var reports: Int
        /// Repeats counted since the chain's last report.
        var pending: Int
        /// When the last counted repeat occurred.
        var lastTime: Date
        /// The first occurrence's report, which repeat summaries are made from.
        var first: NonFatalReport
    }

    /// What became of one occurrence.
    enum Decision: Equatable {
        /// The first occurrence of its chain: queue this report.
        case send(NonFatalReport)
        /// A repeat, counted for the chain's next summary.
        case counted
        /// Dropped by a cap (and counted as such).
        case dropped
    }

    let build: BuildIdentity
    let session: UUID
    let host: String?
    let maximumChainsPerSession: Int
    let maximumReportsPerChain: Int

    private(set) var chains: [String: ChainRecord] = [:]
    private(set) var statistics = ReportStatistics()
    private var sequence = 0
    /// The statistics as the last drops report carried them.
    private var reportedDrops = ReportStatistics()

    init(configuration: NonFatalReporter.Configuration) {
        build = configuration.build
        session = configuration.sessionID
        host = configuration.host.flatMap(NonFatalReporter.Configuration.screenedHost)
        maximumChainsPerSession = max(1, configuration.maximumChainsPerSession)
        maximumReportsPerChain = max(1, configuration.maximumReportsPerChain)
    }

    /// Decides about one occurrence.
    mutating func record(
        _ chain: ErrorChain,
        context: [ErrorChain.Link.ContextEntry],
        fileID: String,
        line: Int,
        function: String,
        time: Date
    ) -> Decision {
        statistics.recorded += 1
        let key = chain.short
        if var record = chains[key] {
            guard record.reports < maximumReportsPerChain else {
                statistics.droppedByChainCap += 1
                return .dropped
            }
            record.pending += 1
            record.lastTime = max(record.lastTime, time)
            chains[key] = record
            statistics.repeatsCounted += 1
            return .counted
        }
        guard chains.count < maximumChainsPerSession else {
            statistics.droppedBySessionCap += 1
            return .dropped
        }
        sequence += 1
        let report = NonFatalReport(
            kind: .occurrence,
            error: chain,
            context: context,
            file: fileID,
            line: line,
            function: function,
            time: time,
            build: build,
            session: session,
            occurrences: 1,
            sequence: sequence,
            host: host
        )
        chains[key] = ChainRecord(reports: 1, pending: 0, lastTime: time, first: report)
        statistics.sent += 1
        return .send(report)
    }

    /// The queue refused a first occurrence's report: the chain counts as never reported, so its
    /// next occurrence is a first occurrence again.
    mutating func firstOccurrenceDropped(_ report: NonFatalReport) {
        chains[report.chain] = nil
        statistics.sent -= 1
        statistics.droppedByQueueFull += 1
    }

    /// Counts an occurrence recorded after the session ended, which no queue takes any more.
    mutating func droppedAfterShutdown() {
        statistics.recorded += 1
        statistics.droppedByQueueFull += 1
    }

    /// A repeat summary for every chain with repeats counted since its last report, oldest chain
    /// first. Each one uses one of its chain's reports.
    mutating func repeatSummaries() -> [NonFatalReport] {
        let due = chains.values.filter { $0.pending > 0 }.sorted { $0.first.sequence < $1.first.sequence }
        var summaries: [NonFatalReport] = []
        for record in due {
            sequence += 1
            var summary = record.first
            summary.kind = .repeats
            summary.context = []
            summary.time = record.lastTime
            summary.occurrences = record.pending
            summary.sequence = sequence
            chains[summary.chain]?.reports += 1
            chains[summary.chain]?.pending = 0
            statistics.repeatReports += 1
            summaries.append(summary)
        }
        return summaries
    }

    /// The queue refused a repeat summary, but a later flush can try again: its repeats are
    /// counted as pending again.
    mutating func repeatSummaryDeferred(_ summary: NonFatalReport) {
        chains[summary.chain]?.reports -= 1
        chains[summary.chain]?.pending += summary.occurrences
        statistics.repeatReports -= 1
    }

    /// The queue refused a repeat summary at the session's end: its repeats are dropped.
    mutating func repeatSummaryDropped(_ summary: NonFatalReport) {
        statistics.repeatReports -= 1
        statistics.repeatsCounted -= summary.occurrences
        statistics.droppedByQueueFull += summary.occurrences
    }

    /// Counts one delivery to one sink that failed.
    mutating func sinkFailed(timedOut: Bool) {
        statistics.sinkFailures += 1
        if timedOut { statistics.sinkTimeouts += 1 }
    }

    /// A drops report, if drops or sink failures grew since the last one; call
    /// ``dropsReported(_:)`` with it once it is queued.
    ///
    /// Its occurrences are the occurrences dropped since the last drops report; its context is the
    /// whole session's statistics so far.
    mutating func dropsReport(time: Date) -> NonFatalReport? {
        guard statistics.dropped > reportedDrops.dropped || statistics.sinkFailures > reportedDrops.sinkFailures
        else { return nil }
        sequence += 1
        let chain = ErrorChain(links: [
            ErrorChain.Link(
                domain: ReportingErrorCode.domain,
                shortName: ReportingErrorCode.shortName,
                code: ReportingErrorCode.reportsDropped.rawValue,
                codeName: ReportingErrorCode.reportsDropped.name,
                reason: "The non-fatal reporter dropped occurrences or its sinks failed."
            )
        ])
        let counts: [(String, Int)] = [
            ("recorded", statistics.recorded),
            ("sent", statistics.sent),
            ("repeatsCounted", statistics.repeatsCounted),
            ("droppedByChainCap", statistics.droppedByChainCap),
            ("droppedBySessionCap", statistics.droppedBySessionCap),
            ("droppedByQueueFull", statistics.droppedByQueueFull),
            ("sinkFailures", statistics.sinkFailures),
            ("sinkTimeouts", statistics.sinkTimeouts),
        ]
        return NonFatalReport(
            kind: .drops,
            error: chain,
            context: counts.map { ErrorChain.Link.ContextEntry(key: $0.0, value: String($0.1), isSensitive: false) },
            file: "Rebound/NonFatalReporter.swift",
            line: 0,
            function: "flush()",
            time: time,
            build: build,
            session: session,
            occurrences: statistics.dropped - reportedDrops.dropped,
            sequence: sequence,
            host: host
        )
    }

    /// Notes that a drops report with the current statistics was queued.
    mutating func dropsReported() {
        reportedDrops = statistics
    }
}
