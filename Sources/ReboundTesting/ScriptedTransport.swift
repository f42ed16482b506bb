public import Foundation
public import HTTPTypes
public import Rebound

/// An in-memory `HTTPTransport` that plays a script: one step per request, in order.
///
/// Use it in unit tests of code above the transport, where a real server would only add time.
/// Every request is recorded, so a test can check what was sent.
///
/// ```swift
/// let transport = ScriptedTransport([
///     .fail(NetworkError(.timeout)),
///     .respond(status: .ok, body: Data(#"{"id":1}"#.utf8)),
/// ])
/// ```
///
/// When the script runs out, a request fails with `NetworkErrorCode.other` and a reason that
/// says so, rather than hanging or crashing the test.
public final class ScriptedTransport: HTTPTransport {
    /// What the transport does with one request.
    public enum Step: Sendable {
        /// Answers with this status, header fields and body.
        case respond(status: HTTPResponse.Status, headers: HTTPFields = [:], body: Data = Data())
        /// Fails with this error.
        case fail(NetworkError)
        /// Waits until the request's task is cancelled, then fails with `NetworkErrorCode.cancelled`.
        case waitForCancellation
        /// Computes the outcome from the request.
        case reply(@Sendable (HTTPRequest, Data?) async throws(NetworkError) -> TransportResponse)
    }

    /// A request as the transport received it.
    public struct RecordedRequest: Sendable {
        public var request: HTTPRequest
        public var body: Data?
        public var options: TransportOptions
    }

    private struct State {
        var steps: [Step]
        var next = 0
        var recorded: [RecordedRequest] = []
    }

    private let state: Locked<State>

    /// Creates a transport that plays `steps` in order.
    public init(_ steps: [Step]) {
        state = Locked(State(steps: steps))
    }

    /// Adds steps to the end of the script.
    public func append(_ steps: Step...) {
        state.withLock { $0.steps += steps }
    }

    /// Every request received so far, in order.
    public var requests: [RecordedRequest] {
        state.withLock { $0.recorded }
    }

    public func send(
        _ request: HTTPRequest,
        body: Data?,
        options: TransportOptions
    ) async throws(NetworkError) -> TransportResponse {
        let step = state.withLock { state -> Step? in
            state.recorded.append(RecordedRequest(request: request, body: body, options: options))
            guard state.next < state.steps.count else { return nil }
            defer { state.next += 1 }
            return state.steps[state.next]
        }
        guard let step else {
            throw NetworkError(.other, reason: "ScriptedTransport has no step left for request \(requests.count).")
        }
        switch step {
        case .respond(let status, let headers, let body):
            return TransportResponse(head: HTTPResponse(status: status, headerFields: headers), body: body)
        case .fail(let error):
            throw error
        case .waitForCancellation:
            await Self.suspendUntilCancelled()
            throw NetworkError(.cancelled, reason: "The request's task was cancelled.")
        case .reply(let reply):
            return try await reply(request, body)
        }
    }

    /// Suspends, without polling or sleeping, until the current task is cancelled.
    private static func suspendUntilCancelled() async {
        let waiter = Locked<(continuation: CheckedContinuation<Void, Never>?, cancelled: Bool)>((nil, false))
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let resumeNow = waiter.withLock { state -> Bool in
                    if state.cancelled { return true }
                    state.continuation = continuation
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            let continuation = waiter.withLock { state -> CheckedContinuation<Void, Never>? in
                state.cancelled = true
                defer { state.continuation = nil }
                return state.continuation
            }
            continuation?.resume()
        }
    }
}
