import Foundation
import HTTPTypes
import Logging
import Tracing

// A call that failed for good may be answered with an earlier answer: the handlers that list
// `HandlerHooks.staleAnswer` are asked in order, after the attempts are over.

extension APIDataManager {
    /// The first earlier answer a handler has for a call that failed for good, and the handler's
    /// name; never for a cancelled call, whose caller wants no answer at all.
    @usableFromInline
    func staleAnswer(
        for call: CallRequest, failure: any Error, history: [AttemptRecord]
    ) -> (answer: StaleAnswer, handler: String)? {
        var failed: FailedCall?
        for participant in participants
        where participant.hooks.contains(.staleAnswer) && call.options.includes(participant.handler) {
            let asked: FailedCall
            if let failed {
                asked = failed
            } else {
                // Only once a handler could answer: a failed call without one costs nothing more.
                guard !Task.isCancelled, !failure.chainContains(RecoveryErrorCode.cancelled),
                    !failure.chainContains(NetworkErrorCode.cancelled)
                else { return nil }
                asked = FailedCall(
                    request: HTTPRequest(
                        method: call.method, scheme: scheme, authority: authority, path: basePath + call.path,
                        headerFields: call.headerFields),
                    options: call.options, error: failure, history: history, time: time)
                failed = asked
            }
            if let answer = participant.handler.staleAnswer(for: asked) { return (answer, participant.name) }
        }
        return nil
    }

    /// Logs, counts and traces a call answered with an earlier answer: the counterpart of
    /// ``failure(of:cause:history:fileID:line:span:)`` for a failure that was answered.
    @usableFromInline
    func answeredStale<Code: ErrorCode>(
        _ call: CallRequest, errorCode: Code, failure: any Error, staleness: Staleness, history: [AttemptRecord],
        span: CallSpan?
    ) {
        let chain = LayerError<Code>(errorCode, cause: failure).shortChain
        instruments.recordStaleAnswer(handler: staleness.handler)
        if let span = span?.span {
            span.attributes["rebound.chain"] = chain
            span.attributes["rebound.stale.age"] = Self.seconds(staleness.age)
        }
        logger.warning(
            "request failed, answered stale",
            metadata: [
                "endpoint": "\(call.label)", "chain": "\(chain)", "attempts": "\(history.count)",
                "handler": "\(staleness.handler)",
                "age": "\(String(format: "%.3f", Self.seconds(staleness.age))) s",
            ]
        )
    }

    private static func seconds(_ duration: Duration) -> Double {
        let (seconds, attoseconds) = duration.components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}
