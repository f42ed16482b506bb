/// Receives the errors a response's decoding recovered from, for monitoring.
///
/// A response that decodes partly is a success for the person using the app and a signal for the
/// people running the API: something sent data the app could not read. An observer gets the
/// recovered errors of one response in one call, each already a chain under the endpoint's code
/// (`AP8-JS1-DE1`; see ``ResilientDecodingDigest/errors(under:context:fileID:line:)``), so a
/// non-fatal reporter can group them like any other failure:
///
/// ```swift
/// struct NonFatalReporting: PartialDecodingObserver {
///     let reporter: NonFatalReporter
///     func recovered(_ errors: [any Error]) {
///         for error in errors { reporter.record(error) }
///     }
/// }
///
/// let listTasks = Endpoint<TaskList, APIErrorCode>(
///     resilient: .get, "/v1/tasks", errorCode: .listTasksFailed,
///     observer: NonFatalReporting(reporter: reporter)
/// )
/// ```
///
/// Or give one observer to every resilient endpoint at once, for the duration of a call:
/// `ResilientDecoding.$observer.withValue(observer) { … }`.
///
/// It is called synchronously on the decoding thread, only when there is something to report:
/// hand the errors over and return.
public protocol PartialDecodingObserver: Sendable {
    /// Called once per decoded response that recovered from at least one error.
    ///
    /// - Parameter errors: The recovered errors, in the order they happened, each a
    ///   `LayerError` of the endpoint's layer over a ``JSONError``.
    func recovered(_ errors: [any Error])
}

/// An observer that calls a closure: for tests, and for wiring that needs no type of its own.
///
/// ```swift
/// let observer = PartialDecodingCallback { errors in
///     for error in errors { logger.warning("recovered", metadata: ["chain": "\(error.chain.short)"]) }
/// }
/// ```
public struct PartialDecodingCallback: PartialDecodingObserver {
    private let body: @Sendable ([any Error]) -> Void

    public init(_ body: @escaping @Sendable ([any Error]) -> Void) {
        self.body = body
    }

    public func recovered(_ errors: [any Error]) {
        body(errors)
    }
}
