import Tracing

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// A report waiting for the sinks, with the service context of the code that recorded it.
struct QueuedReport: Sendable {
    var report: NonFatalReport
    var serviceContext: ServiceContext?
    /// Whether the synchronous sinks got the report before `record` returned, so that only the
    /// others are left.
    var writtenBeforeReturn = false
}

/// The reporter's ledger, bounded queue and single background delivery task, under one lock.
///
/// ```
///  record() ──▶ ledger ──first occurrence──▶ queue (≤ capacity) ──▶ delivery task ──▶ sink 1 ┐
///  (caller's     │                              │ full: dropped        one report at  ──▶ sink 2 ├ each
///   thread,      └─repeat: counted              │                    a time, to all ──▶ sink 3 ┘ within
///   no waiting)                                 │                    sinks at once      sinkTimeout
///  flush() ──▶ repeat summaries, drops report ──┘
///          ──▶ waits (≤ flushTimeout) until everything queued so far is delivered
///          ──▶ each sink's flush() (≤ sinkTimeout, and what is left of flushTimeout)
/// ```
///
/// With ``NonFatalReporter/Delivery/writtenBeforeReturn``, `record()` also writes a first
/// occurrence's report to each ``SynchronousReportSink`` itself, after the lock, and queues it
/// only for the other sinks (not at all when there are none). When the queue is full, the report
/// is still written, and each other sink counts a sink failure: the occurrence was sent.
///
/// Deciding about an occurrence and queueing its report happen under the same lock, so statistics
/// never count a report that is not in the queue.
///
/// A drops report has a place beyond the capacity: at a flush it may be the capacity's one more,
/// and at shutdown it always gets in, so that the drops of summaries that did not fit reach the
/// sinks too.
final class ReportQueue: Sendable {
    private struct Waiter {
        var target: Int
        var continuation: CheckedContinuation<Void, Never>
    }

    private struct State {
        var ledger: ReportLedger
        var queue: [QueuedReport] = []
        /// The delivery task, when it waits for a report.
        var idleDeliverer: CheckedContinuation<QueuedReport?, Never>?
        /// Whether occurrences are still accepted (false after shutdown).
        var accepting = true
        /// Whether the delivery task should end once the queue is empty.
        var finishing = false
        var delivererEnded = false
        /// Reports queued so far, and reports whose delivery to every sink ended.
        var queued = 0
        var delivered = 0
        var waiters: [Int: Waiter] = [:]
        var nextWaiter = 0

        /// Queues a report, or hands it to the idle delivery task; `false` when there is no room.
        mutating func enqueue(
            _ item: QueuedReport,
            capacity: Int,
            handOff: inout [(CheckedContinuation<QueuedReport?, Never>, QueuedReport?)]
        ) -> Bool {
            guard !finishing, queue.count < capacity else { return false }
            queued += 1
            if let deliverer = idleDeliverer {
                idleDeliverer = nil
                handOff.append((deliverer, item))
            } else {
                queue.append(item)
            }
            return true
        }

        /// Counts the sink failures among `outcomes`.
        mutating func countFailures(_ outcomes: [ReportDelivery.Outcome]) {
            for outcome in outcomes where outcome != .delivered {
                ledger.sinkFailed(timedOut: outcome == .timedOut)
            }
        }
    }

    private let state: Locked<State>
    private let sinks: [any ReportSink]
    /// The sinks `record()` writes to before it returns; none in queued delivery.
    private let synchronousSinks: [any SynchronousReportSink]
    /// The sinks left for the queue when the synchronous ones got a report before `record()` returned.
    private let queuedSinks: [any ReportSink]
    private let capacity: Int
    private let sinkTimeout: Duration
    private let flushTimeout: Duration
    private let clock: TimeSource
    private let now: @Sendable () -> Date

    init(
        configuration: NonFatalReporter.Configuration,
        sinks: [any ReportSink],
        clock: any Clock<Duration>,
        now: @escaping @Sendable () -> Date
    ) {
        state = Locked(State(ledger: ReportLedger(configuration: configuration)))
        self.sinks = sinks
        if configuration.delivery == .writtenBeforeReturn {
            synchronousSinks = sinks.compactMap { $0 as? any SynchronousReportSink }
            queuedSinks = sinks.filter { !($0 is any SynchronousReportSink) }
        } else {
            synchronousSinks = []
            queuedSinks = sinks
        }
        capacity = max(1, configuration.queueCapacity)
        sinkTimeout = configuration.sinkTimeout
        flushTimeout = configuration.flushTimeout
        self.clock = TimeSource(clock, date: { Date() })
        self.now = now
        // The task holds the queue until the session ends: `flush(final: true)`, or `finish()`,
        // which the reporter calls when it goes away.
        Task { await self.deliverAll() }
    }

    var statistics: ReportStatistics { state.withLock { $0.ledger.statistics } }

    // MARK: - Recording

    /// Decides about one occurrence and queues its report if it gets one; in written-before-return
    /// delivery, writes the report to the synchronous sinks first. Never waits otherwise.
    func record(
        _ chain: ErrorChain,
        context: [ErrorChain.Link.ContextEntry],
        fileID: String,
        line: Int,
        function: String,
        serviceContext: ServiceContext?
    ) {
        let time = now()
        var handOff: [(CheckedContinuation<QueuedReport?, Never>, QueuedReport?)] = []
        let toWrite = state.withLock { state -> NonFatalReport? in
            guard state.accepting else {
                // After shutdown nothing is delivered any more; the occurrence is still counted.
                state.ledger.droppedAfterShutdown()
                return nil
            }
            let decision = state.ledger.record(
                chain, context: context, fileID: fileID, line: line, function: function, time: time)
            guard case .send(let report) = decision else { return nil }
            let writesFirst = !synchronousSinks.isEmpty
            guard !writesFirst || !queuedSinks.isEmpty else { return report }
            let item = QueuedReport(report: report, serviceContext: serviceContext, writtenBeforeReturn: writesFirst)
            if !state.enqueue(item, capacity: capacity, handOff: &handOff) {
                if writesFirst {
                    for _ in queuedSinks { state.ledger.sinkFailed(timedOut: false) }
                } else {
                    state.ledger.firstOccurrenceDropped(report)
                }
            }
            return writesFirst ? report : nil
        }
        for (deliverer, item) in handOff { deliverer.resume(returning: item) }
        if let toWrite { writeBeforeReturn(toWrite) }
    }

    /// Writes a report to every synchronous sink, on the recording thread.
    private func writeBeforeReturn(_ report: NonFatalReport) {
        var failures = 0
        for sink in synchronousSinks {
            do { try sink.receiveSynchronously(report) } catch { failures += 1 }
        }
        guard failures > 0 else { return }
        state.withLock { state in
            for _ in 0..<failures { state.ledger.sinkFailed(timedOut: false) }
        }
    }

    // MARK: - Flushing

    /// Delivers what is queued, then queues repeat summaries and a drops report and waits until
    /// they are delivered too; all within the flush timeout.
    ///
    /// Waiting for the queue first lets the drops report count the sink failures of the reports
    /// queued before the flush.
    ///
    /// - Parameter final: Whether the session ends: later occurrences are refused, summaries that
    ///   do not fit are dropped instead of kept for the next flush, and the delivery task ends
    ///   once the queue is empty.
    func flush(final: Bool) async {
        let start = clock.now()
        let queuedBefore = state.withLock { state in
            if final { state.accepting = false }
            return state.queued
        }
        await waitUntilDelivered(queuedBefore, timeout: flushTimeout)
        let target = queueSummaries(final: final)
        await waitUntilDelivered(target, timeout: max(.zero, flushTimeout - (clock.now() - start)))
        // A flush that ran out of time leaves the sinks alone: a sink's flush may well wait for
        // the deliveries that took the time.
        let left = flushTimeout - (clock.now() - start)
        guard left > .zero else { return }
        let outcomes = await everySink(sinks, timeout: min(sinkTimeout, left), serviceContext: nil) {
            try await $0.flush()
        }
        countFailures(outcomes)
    }

    /// Ends the session without waiting, for a reporter that goes away without a shutdown: queues
    /// the repeat summaries and the drops report as a final flush does, so that no count is lost
    /// silently, and lets the delivery task end once it has delivered them.
    ///
    /// Nothing waits for the queue first, so sink failures of reports still queued are counted in
    /// the statistics but not in this drops report.
    func finish() {
        queueSummaries(final: true)
    }

    /// Queues a repeat summary for every chain with uncounted repeats and a drops report if drops
    /// grew; at the session's end (`final`) also refuses later occurrences, drops summaries that
    /// do not fit instead of keeping them for later, and lets the delivery task end once the queue
    /// is empty. Does nothing more after the session ended.
    ///
    /// - Returns: The number of reports queued so far, the summaries included.
    @discardableResult
    private func queueSummaries(final: Bool) -> Int {
        let time = now()
        var handOff: [(CheckedContinuation<QueuedReport?, Never>, QueuedReport?)] = []
        let target = state.withLock { state -> Int in
            if final { state.accepting = false }
            if !state.finishing {
                for summary in state.ledger.repeatSummaries() {
                    let item = QueuedReport(report: summary, serviceContext: nil)
                    if !state.enqueue(item, capacity: capacity, handOff: &handOff) {
                        if final {
                            state.ledger.repeatSummaryDropped(summary)
                        } else {
                            state.ledger.repeatSummaryDeferred(summary)
                        }
                    }
                }
                // The drops report counts what did not fit, so it must not be refused for the same
                // reason: it may pass the capacity by one, and at the session's end, its last
                // chance, it always gets in.
                if let drops = state.ledger.dropsReport(time: time),
                    state.enqueue(
                        QueuedReport(report: drops, serviceContext: nil), capacity: final ? .max : capacity + 1,
                        handOff: &handOff)
                {
                    state.ledger.dropsReported()
                }
            }
            if final {
                state.finishing = true
                if let deliverer = state.idleDeliverer {
                    state.idleDeliverer = nil
                    handOff.append((deliverer, nil))
                }
            }
            return state.queued
        }
        for (deliverer, item) in handOff { deliverer.resume(returning: item) }
        return target
    }

    private func waitUntilDelivered(_ target: Int, timeout: Duration) async {
        let id = state.withLock { state in
            defer { state.nextWaiter += 1 }
            return state.nextWaiter
        }
        let timer = Locked<Task<Void, Never>?>(nil)
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let done = state.withLock { state -> Bool in
                    // Read under the lock: a cancellation before it was seen here, and one after it
                    // finds the waiter registered (its handler takes the same lock).
                    if state.delivered >= target || state.delivererEnded || Task.isCancelled { return true }
                    state.waiters[id] = Waiter(target: target, continuation: continuation)
                    return false
                }
                if done {
                    continuation.resume()
                    return
                }
                let sleeper = Task { [clock] in
                    do { try await clock.sleep(for: timeout) } catch { return }
                    self.releaseWaiter(id)
                }
                timer.withLock { $0 = sleeper }
            }
        } onCancel: {
            releaseWaiter(id)
        }
        timer.withLock { $0 }?.cancel()
    }

    private func releaseWaiter(_ id: Int) {
        state.withLock { $0.waiters.removeValue(forKey: id) }?.continuation.resume()
    }

    // MARK: - Delivering

    private func nextReport() async -> QueuedReport? {
        await withCheckedContinuation { (continuation: CheckedContinuation<QueuedReport?, Never>) in
            let ready = state.withLock { state -> QueuedReport?? in
                if !state.queue.isEmpty { return .some(state.queue.removeFirst()) }
                if state.finishing { return .some(nil) }
                state.idleDeliverer = continuation
                return nil
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }

    private func deliverAll() async {
        while let item = await nextReport() {
            let outcomes = await everySink(
                item.writtenBeforeReturn ? queuedSinks : sinks, timeout: sinkTimeout,
                serviceContext: item.serviceContext
            ) { try await $0.receive(item.report) }
            let released = state.withLock { state -> [CheckedContinuation<Void, Never>] in
                state.countFailures(outcomes)
                state.delivered += 1
                let due = state.waiters.filter { $0.value.target <= state.delivered }
                for id in due.keys { state.waiters[id] = nil }
                return due.values.map(\.continuation)
            }
            for continuation in released { continuation.resume() }
        }
        let released = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.delivererEnded = true
            defer { state.waiters = [:] }
            return state.waiters.values.map(\.continuation)
        }
        for continuation in released { continuation.resume() }
    }

    /// Runs `operation` on every sink at once, each within `timeout`, and returns the outcomes.
    private func everySink(
        _ sinks: [any ReportSink],
        timeout: Duration,
        serviceContext: ServiceContext?,
        _ operation: @escaping @Sendable (any ReportSink) async throws -> Void
    ) async -> [ReportDelivery.Outcome] {
        await withTaskGroup(of: ReportDelivery.Outcome.self) { group in
            for sink in sinks {
                group.addTask { [clock] in
                    await ReportDelivery.run(
                        serviceContext: serviceContext, timeout: timeout, sleep: { try await clock.sleep(for: $0) }
                    ) { try await operation(sink) }
                }
            }
            var outcomes: [ReportDelivery.Outcome] = []
            for await outcome in group { outcomes.append(outcome) }
            return outcomes
        }
    }

    private func countFailures(_ outcomes: [ReportDelivery.Outcome]) {
        state.withLock { $0.countFailures(outcomes) }
    }
}
