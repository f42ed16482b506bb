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
public protocol ReportSink: Sendable {
    /// Takes one report somewhere.
    ///
    /// - Parameter report: The report; its context and chain are already redacted.
    /// - Throws: Any error; the reporter counts it as a sink failure and goes on.
    func receive(_ report: NonFatalReport) async throws
}
