import Tracing

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// One sink's delivery of one report, or its flush, within a timeout that does not depend on the
/// sink's cooperation.
enum ReportDelivery {
    enum Outcome: Sendable, Equatable {
        case delivered
        case failed
        case timedOut
    }

    /// Runs `operation` (a sink's delivery or flush), or gives up after `timeout`.
    ///
    /// The operation runs in a task of its own, under `serviceContext`. The timeout cancels that
    /// task and returns at once: an operation that ignores cancellation keeps running, but nobody
    /// waits for it.
    static func run(
        serviceContext: ServiceContext?,
        timeout: Duration,
        sleep: @escaping @Sendable (Duration) async throws -> Void,
        operation: @escaping @Sendable () async throws -> Void
    ) async -> Outcome {
        await withCheckedContinuation { (continuation: CheckedContinuation<Outcome, Never>) in
            let pending = Locked<CheckedContinuation<Outcome, Never>?>(continuation)
            let finish: @Sendable (Outcome) -> Bool = { outcome in
                guard let continuation = pending.withLock({ $0.take() }) else { return false }
                continuation.resume(returning: outcome)
                return true
            }
            let delivery = Locked<Task<Void, Never>?>(nil)
            let timer = Task {
                do { try await sleep(timeout) } catch { return }
                if finish(.timedOut) { delivery.withLock { $0 }?.cancel() }
            }
            let task = ServiceContext.withValue(serviceContext) {
                Task {
                    let outcome: Outcome
                    do {
                        try await operation()
                        outcome = .delivered
                    } catch {
                        outcome = .failed
                    }
                    timer.cancel()
                    _ = finish(outcome)
                }
            }
            delivery.withLock { $0 = task }
            // The timer may have fired before the task was stored.
            if pending.withLock({ $0 == nil }) { task.cancel() }
        }
    }
}
