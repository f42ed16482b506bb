/// Where non-fatal reports go: a log, a file, metrics, traces, or a collector of your own.
///
/// A sink has one job: take a report somewhere. The reporter calls it from its background queue,
/// one report at a time (unless an earlier delivery outlived its timeout), with a timeout (``NonFatalReporter/Configuration/sinkTimeout``): a sink
/// that throws or takes too long is counted in ``ReportStatistics/sinkFailures`` and delivery
/// moves on, so a sink can never block or break the code that records an error.
///
/// A sink should honour task cancellation: the reporter cancels a delivery that runs past its
/// timeout. One that ignores it keeps running in the background, but the reporter no longer waits
/// for it.
///
/// The task-local `ServiceContext` during ``receive(_:)`` is the one of the code that recorded the
/// error, so a sink can attach the report to the recorder's trace (``TracingReportSink`` does).
///
/// ```swift
/// struct CollectorSink: ReportSink {
///     let client: CollectorClient
///     func receive(_ report: NonFatalReport) async throws {
///         try await client.post(report)
///     }
/// }
/// ```
///
/// A sink that keeps reports somewhere it can make durable (a file, a buffer it sends in batches)
/// does so in ``flush()``, which ``NonFatalReporter/flush()`` calls once the queue is delivered.
public protocol ReportSink: Sendable {
    /// Takes one report somewhere.
    ///
    /// - Parameter report: The report; its context and chain are already redacted.
    /// - Throws: Any error; the reporter counts it as a sink failure and goes on.
    func receive(_ report: NonFatalReport) async throws

    /// Makes every report received so far durable: synced to storage, sent from a buffer.
    ///
    /// The reporter calls it at each ``NonFatalReporter/flush()`` and at
    /// ``NonFatalReporter/shutdown()``, after every report queued before them was delivered, within
    /// ``NonFatalReporter/Configuration/sinkTimeout``. The default does nothing: a sink that sends
    /// each report on at once has nothing left to make durable.
    ///
    /// - Throws: Any error; the reporter counts it as a sink failure.
    func flush() async throws
}

extension ReportSink {
    /// Does nothing: the sink keeps nothing back.
    public func flush() async throws {}
}

/// A sink that can take a report synchronously, so that a reporter whose
/// ``NonFatalReporter/Configuration/delivery`` is ``NonFatalReporter/Delivery/writtenBeforeReturn``
/// hands it each report before ``NonFatalReporter/record(_:context:fileID:line:function:)`` returns.
///
/// ``receiveSynchronously(_:)`` runs on the thread of the code that records, while it waits: it
/// should be quick and must not wait on anything that may never come (a network peer, a lock held
/// across an `await`). ``JSONLinesReportSink`` is one: one `write(2)` per report, and an
/// `fsync(2)` if asked.
public protocol SynchronousReportSink: ReportSink {
    /// Takes one report somewhere before returning.
    ///
    /// - Parameter report: The report; its context and chain are already redacted.
    /// - Throws: Any error; the reporter counts it as a sink failure and goes on.
    func receiveSynchronously(_ report: NonFatalReport) throws
}
