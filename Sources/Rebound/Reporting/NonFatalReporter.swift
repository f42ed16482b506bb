import Tracing

#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// Records non-fatal errors and sends reports of them to sinks: a log, a file, metrics, traces.
///
/// A non-fatal is an error the app handles (shows a message, falls back, gives up on one task)
/// but that the team should know about. The guidelines the talk follows put it in two steps:
/// record the error with its debug context, then throw the error the recorder returns. With a
/// reporter, that is one expression:
///
/// ```swift
/// func loadTasks() async throws(LogicError) -> [Task] {
///     do {
///         return try await api.tasks()
///     } catch {
///         throw reporter.record(LogicError(.loadTasksFailed, cause: error), context: ["screen": "tasks"])
///     }
/// }
/// ```
///
/// The app makes one reporter at start-up, with its build and a session, and passes it to the
/// code that records:
///
/// ```swift
/// let reporter = NonFatalReporter(
///     configuration: .init(build: BuildIdentity(version: "2.4.1", revision: "3f9c2ab")),
///     sinks: [LoggingReportSink(logger: logger), try JSONLinesReportSink(path: "/var/log/app/nonfatal.jsonl")]
/// )
/// …
/// await reporter.shutdown()       // at exit: the last repeat counts reach the sinks
/// ```
///
/// A reporter released without ``shutdown()`` queues those last counts too, but cannot wait for
/// them: a process that ends right after may end before they reach the sinks.
///
/// ## What is sent
///
/// Reports are grouped by the short chain. In a session, the first occurrence of a chain is sent
/// with its context, file, line and function; its repeats are counted and sent as one
/// ``NonFatalReport/Kind/repeats`` report per chain at each ``flush()`` (and at ``shutdown()``).
/// Caps bound what a session sends (``Configuration``); every occurrence a cap or a full queue
/// drops is counted in ``statistics``, and the counts are sent too, as a
/// ``NonFatalReport/Kind/drops`` report at the next flush.
///
/// ## Never in the way
///
/// ``record(_:context:fileID:line:function:)`` is synchronous and returns at once: it decides under
/// a lock and queues the report. One background task per reporter delivers the queue to every sink,
/// each within ``Configuration/sinkTimeout``; a sink that throws or hangs is counted in
/// ``ReportStatistics/sinkFailures`` and the others still get the report.
///
/// ## Surviving a crash
///
/// A queued report dies with the process. With ``Configuration/delivery`` set to
/// ``Delivery/writtenBeforeReturn``, `record` writes a first occurrence's report to each
/// ``SynchronousReportSink`` (``JSONLinesReportSink``) before it returns, so a report whose
/// `record` returned is in the file even if the process is killed the next instant; the cost is
/// one `write(2)` on the recording thread. ``flush()`` is the point of durability past a crash of
/// the operating system: it syncs the file (``ReportSink/flush()``), and
/// ``JSONLinesReportSink``'s `fsyncEachReport` syncs every report instead.
public final class NonFatalReporter: Sendable {
    /// The build, session and limits this reporter was made with.
    public let configuration: Configuration
    private let queue: ReportQueue

    /// Creates a reporter and starts its delivery task.
    ///
    /// - Parameters:
    ///   - configuration: The build, the session and the limits.
    ///   - sinks: Where reports go; each gets every report.
    ///   - clock: Measures sink and flush timeouts; inject a test clock in tests.
    ///   - now: The time stamped on reports; inject a fixed one in tests.
    public init(
        configuration: Configuration,
        sinks: [any ReportSink],
        clock: any Clock<Duration> = ContinuousClock(),
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.configuration = configuration
        self.queue = ReportQueue(configuration: configuration, sinks: sinks, clock: clock, now: now)
    }

    /// A reporter released without ``shutdown()`` ends its session all the same, without waiting:
    /// the repeats counted since the last flush and any new drops are queued as the last repeat
    /// summaries and drops report, and the delivery task delivers them before it ends.
    deinit {
        queue.finish()
    }

    /// Records a non-fatal error and returns it, so that the caller can throw it.
    ///
    /// Never fails: the report is queued for the sinks, counted as a repeat, or dropped by a cap
    /// and counted as dropped (``statistics``). Never waits, unless ``Configuration/delivery`` is
    /// ``Delivery/writtenBeforeReturn``: then a report (not a repeat) is written to each
    /// ``SynchronousReportSink`` first. Sensitive values of `context`
    /// and of the error chain's contexts are redacted before anything leaves this call, and
    /// reasons and context keys and values longer than 500 characters are cut (ending in `…`),
    /// so that a response body recorded by mistake cannot make a report megabytes long.
    ///
    /// ```swift
    /// throw reporter.record(APIError(.getTokenFailed, cause: error), context: ["userID": .sensitive(id)])
    /// ```
    ///
    /// - Parameters:
    ///   - error: The error, usually a layer error with its chain of causes.
    ///   - context: Debug context about the situation (the guidelines' "base debug objects").
    ///   - fileID: Where it is recorded; leave the default.
    ///   - line: Where it is recorded; leave the default.
    ///   - function: Where it is recorded; leave the default.
    /// - Returns: `error`, unchanged.
    @discardableResult
    public func record<Failure: Error>(
        _ error: Failure,
        context: ErrorContext = ErrorContext(),
        fileID: String = #fileID,
        line: Int = #line,
        function: String = #function
    ) -> Failure {
        queue.record(
            ErrorChain(error).boundedForReport(),
            context: context.entries.map {
                ErrorChain.Link.ContextEntry(key: $0.key, value: $0.value.revealed, isSensitive: $0.value.isSensitive)
                    .boundedForReport()
            },
            fileID: fileID,
            line: line,
            function: function,
            serviceContext: ServiceContext.current
        )
        return error
    }

    /// What the reporter did so far: occurrences recorded, sent, counted, dropped, and sink failures.
    public var statistics: ReportStatistics { queue.statistics }

    /// Sends the repeat counts gathered so far and any new drop counts, waits until every
    /// report queued so far reached the sinks, then asks each sink to make them durable
    /// (``ReportSink/flush()``: the file sink syncs its file to storage); all within
    /// ``Configuration/flushTimeout``, each sink's flush within ``Configuration/sinkTimeout``.
    ///
    /// Once it returns, the reports recorded before it survive a crash of the process and, in a
    /// ``JSONLinesReportSink``, one of the operating system or a power cut.
    ///
    /// Each repeat summary uses one of its chain's reports (``Configuration/maximumReportsPerChain``),
    /// so flush at natural points (the app going to the background, every few minutes on a server)
    /// rather than after every error.
    public func flush() async {
        await queue.flush(final: false)
    }

    /// Ends the session: flushes as ``flush()`` does, then stops the delivery task.
    ///
    /// Occurrences recorded afterwards are counted as dropped (``ReportStatistics/droppedByQueueFull``).
    public func shutdown() async {
        await queue.flush(final: true)
    }
}
