#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

extension NonFatalReporter {
    /// When a first occurrence's report reaches the sinks: after ``record(_:context:fileID:line:function:)``
    /// returns, or before.
    ///
    /// | mode | a report whose `record` returned | `record` costs |
    /// |---|---|---|
    /// | ``queued`` | waits in memory; lost if the process dies first | a lock and a queue append |
    /// | ``writtenBeforeReturn`` | is in every ``SynchronousReportSink`` (the file): survives a crash of the process | one `write(2)` per report, and an `fsync(2)` if the sink syncs each report |
    ///
    /// docs/reliability.md has the measured cost of each. Repeat counts travel in repeat summaries
    /// at each ``flush()`` whatever the mode, so a crash loses the repeats counted since the last
    /// flush; a crash of the operating system or a power cut also loses what the kernel has not
    /// written to storage yet, unless the file sink syncs each report or the app calls
    /// ``flush()``, which syncs it.
    public enum Delivery: Sendable, Hashable {
        /// Every sink gets the report from the reporter's background task; `record` never waits.
        case queued
        /// Each ``SynchronousReportSink`` gets the report on the recording thread before `record`
        /// returns; the other sinks get it from the queue, as in ``queued``.
        case writtenBeforeReturn
    }

    /// How a reporter identifies its reports, and how much it sends.
    ///
    /// The app makes one at start-up, with the build it is and a session:
    ///
    /// ```swift
    /// let reporter = NonFatalReporter(
    ///     configuration: .init(build: BuildIdentity(version: "2.4.1", revision: "3f9c2ab")),
    ///     sinks: [LoggingReportSink(logger: logger), try JSONLinesReportSink(path: "reports.jsonl")]
    /// )
    /// ```
    ///
    /// ## Limits
    ///
    /// | limit | default | why |
    /// |---|---|---|
    /// | ``maximumChainsPerSession`` | 50 | repeats are counted, not sent, so a session sends one report per distinct failure; a real session has a handful, 50 leaves room for a bad one and still bounds a pathological one (and the memory the counts take) |
    /// | ``maximumReportsPerChain`` | 5 | the first occurrence and four repeat summaries: enough for the counts to arrive at several flushes, while a chain that keeps failing between frequent flushes cannot flood the sinks; a session sends at most 50 × 5 reports |
    /// | ``queueCapacity`` | 256 | a whole session's first occurrences (50) and one flush's summaries (50) with room to spare; about half a megabyte for reports of 2 KB, a megabyte if every one carries 500-character texts, the most a reason or a context key or value keeps in a report |
    /// | ``sinkTimeout`` | 5 s | long enough for a slow disk or a remote collector, short enough that a hung sink holds the queue back by at most that much per report |
    /// | ``flushTimeout`` | 10 s | two sink timeouts: time for the last reports to pass one slow sink; an app that is shutting down should not hang longer |
    /// | ``delivery`` | ``Delivery/queued`` | recording never waits for a disk; an app that must keep the reports of a crash chooses ``Delivery/writtenBeforeReturn`` |
    ///
    /// The tool the talk used allowed 8 non-fatals per session, repeats included: one error in a
    /// loop used them all and hid the others. Counting repeats instead of sending them is what lets
    /// the caps be per distinct chain.
    public struct Configuration: Sendable {
        /// The build that records: its version and source revision.
        public var build: BuildIdentity
        /// The session: one per process (or per user session, in an app). Reports of a session are
        /// counted and capped together, and the analysis counts the sessions a chain affected.
        public var sessionID: UUID
        /// The machine every report names (``NonFatalReport/host``), so that `rebound report` can
        /// group reports from many machines; `nil` for none. The reporter keeps at most 253
        /// characters of it, drops control characters and redacts a part that looks like a
        /// secret (see ``localHost()``).
        public var host: String?
        /// The most distinct chains reported in a session; occurrences of further chains are
        /// dropped (``ReportStatistics/droppedBySessionCap``).
        public var maximumChainsPerSession: Int
        /// The most reports per chain in a session, its first occurrence and repeat summaries
        /// together; later occurrences are dropped (``ReportStatistics/droppedByChainCap``).
        public var maximumReportsPerChain: Int
        /// The most reports waiting for the sinks; a report that does not fit is dropped
        /// (``ReportStatistics/droppedByQueueFull``). A ``NonFatalReport/Kind/drops`` report,
        /// which counts those, may pass it by one, and at ``NonFatalReporter/shutdown()`` always
        /// gets in.
        public var queueCapacity: Int
        /// How long one sink may take with one report before it counts as failed.
        public var sinkTimeout: Duration
        /// How long ``NonFatalReporter/flush()`` waits for the queue to drain.
        public var flushTimeout: Duration
        /// Whether reports wait in the queue or are written before `record` returns.
        public var delivery: Delivery

        /// Creates a configuration; see the table above for the defaults' reasons.
        ///
        /// - Parameters:
        ///   - build: The build that records.
        ///   - sessionID: The session; a new random one by default, since a process is a session.
        ///   - host: The machine; its host name by default (``localHost()``).
        ///   - maximumChainsPerSession: At least 1.
        ///   - maximumReportsPerChain: At least 1 (1 sends first occurrences only and drops every repeat).
        ///   - queueCapacity: At least 1.
        ///   - sinkTimeout: How long a sink may take with one report.
        ///   - flushTimeout: How long a flush waits.
        ///   - delivery: Queued, or written to the synchronous sinks before `record` returns.
        public init(
            build: BuildIdentity,
            sessionID: UUID = UUID(),
            host: String? = Self.localHost(),
            maximumChainsPerSession: Int = 50,
            maximumReportsPerChain: Int = 5,
            queueCapacity: Int = 256,
            sinkTimeout: Duration = .seconds(5),
            flushTimeout: Duration = .seconds(10),
            delivery: Delivery = .queued
        ) {
            self.build = build
            self.sessionID = sessionID
            self.host = host
            self.maximumChainsPerSession = max(1, maximumChainsPerSession)
            self.maximumReportsPerChain = max(1, maximumReportsPerChain)
            self.queueCapacity = max(1, queueCapacity)
            self.sinkTimeout = sinkTimeout
            self.flushTimeout = flushTimeout
            self.delivery = delivery
        }
    }
}
