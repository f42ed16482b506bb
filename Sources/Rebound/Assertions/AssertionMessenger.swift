import Dispatch

/// Who hears about failed non-fatal assertions: a reporter, a notifier, a test's recorder.
///
/// The idea comes from AssertionNotifier: a debug build that hits an assertion away from the
/// debugger should still say which file and line it was. The messenger is told before the
/// checker traps or continues; ``NonFatalReporter`` is the usual messenger, recording the failure
/// as a non-fatal `AssertionError`.
public protocol AssertionMessenger: Sendable {
    /// Takes note of a failed assertion. Must not wait: it runs on the asserting thread.
    func assertionFailed(_ failure: AssertionFailure)

    /// Called after ``assertionFailed(_:)`` when the checker is about to trap: the last chance to
    /// get the message out of the process. By default it does nothing.
    func willTrap(after failure: AssertionFailure)
}

extension AssertionMessenger {
    public func willTrap(after failure: AssertionFailure) {}
}

extension NonFatalReporter: AssertionMessenger {
    /// Records the failure as a non-fatal ``AssertionError``, with the assertion's context, file,
    /// line and function.
    public func assertionFailed(_ failure: AssertionFailure) {
        record(
            failure.error,
            context: failure.context,
            fileID: failure.fileID,
            line: failure.line,
            function: failure.function
        )
    }

    /// Blocks the asserting thread until the report is delivered, at most
    /// ``Configuration/flushTimeout``, since the process is about to end and the queue with it.
    public func willTrap(after failure: AssertionFailure) {
        let delivered = DispatchSemaphore(value: 0)
        Task {
            await flush()
            delivered.signal()
        }
        let timeout = configuration.flushTimeout.components
        let seconds = Double(timeout.seconds) + Double(timeout.attoseconds) / 1e18
        // A little past the flush's own timeout, which normally ends the wait first.
        _ = delivered.wait(timeout: .now() + seconds + 0.1)
    }
}
