import Dispatch

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Waits for SIGINT or SIGTERM without letting either kill the process, so the server can shut down cleanly.
///
/// The signals' default actions are replaced by dispatch sources on a private serial queue; every
/// piece of state below is touched only on that queue, which is what makes the class safe to share.
final class TerminationSignals: @unchecked Sendable {
    private let queue = DispatchQueue(label: "mock-backend.signals")
    private var sources: [any DispatchSourceSignal] = []
    private var waiter: CheckedContinuation<Int32, Never>?
    private var received: Int32?

    /// Starts watching SIGINT and SIGTERM.
    init() {
        for number in [SIGINT, SIGTERM] {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            source.setEventHandler { [weak self] in self?.deliver(number) }
            source.resume()
            sources.append(source)
        }
    }

    /// Waits for the first of the signals and returns its number; returns at once if one came already.
    func next() async -> Int32 {
        await withCheckedContinuation { continuation in
            queue.async {
                if let received = self.received {
                    continuation.resume(returning: received)
                } else {
                    self.waiter = continuation
                }
            }
        }
    }

    private func deliver(_ number: Int32) {
        if let waiter {
            self.waiter = nil
            waiter.resume(returning: number)
        } else if received == nil {
            received = number
        }
    }
}
