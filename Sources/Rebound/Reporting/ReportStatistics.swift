/// What a reporter did with the errors it was given: every occurrence is in exactly one bucket.
///
/// ```
/// recorded == sent + repeatsCounted + droppedByChainCap + droppedBySessionCap + droppedByQueueFull
/// ```
///
/// Nothing disappears silently: drops are counted here, and at every flush the reporter sends a
/// ``NonFatalReport/Kind/drops`` report with these counts when they have grown.
public struct ReportStatistics: Hashable, Sendable, Codable {
    /// Occurrences given to ``NonFatalReporter/record(_:context:fileID:line:function:)``.
    public var recorded = 0
    /// Occurrences sent as a report of their own: the first of each chain in the session.
    public var sent = 0
    /// Occurrences of chains already reported, counted for a ``NonFatalReport/Kind/repeats`` report.
    public var repeatsCounted = 0
    /// Occurrences dropped because their chain had used ``NonFatalReporter/Configuration/maximumReportsPerChain``.
    public var droppedByChainCap = 0
    /// Occurrences of new chains dropped because the session had used
    /// ``NonFatalReporter/Configuration/maximumChainsPerSession``.
    public var droppedBySessionCap = 0
    /// Occurrences dropped because the queue was full (or the reporter was shut down).
    public var droppedByQueueFull = 0
    /// ``NonFatalReport/Kind/repeats`` reports made.
    public var repeatReports = 0
    /// Deliveries to a sink (and sink flushes) that threw or timed out, timeouts included; in
    /// written-before-return delivery, also a report the queue had no room for, once per sink
    /// that missed it.
    public var sinkFailures = 0
    /// Deliveries to a sink that timed out.
    public var sinkTimeouts = 0

    init() {}

    /// Every occurrence dropped, whatever the reason.
    public var dropped: Int { droppedByChainCap + droppedBySessionCap + droppedByQueueFull }
}
