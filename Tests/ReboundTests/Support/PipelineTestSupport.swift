import Foundation
import HTTPTypes
import ReboundTesting

@testable import Rebound

extension FailedAttempt {
    /// A failure of attempt `attempt` of a call, as handler tests build them by hand.
    init(
        error: any Error,
        request: HTTPRequest,
        body: Data?,
        response: TransportResponse?,
        attempt: Int,
        timeLeft: Duration,
        delayBefore: Duration = .zero,
        history: [AttemptRecord],
        time: TimeSource = TestClock(mode: .manual).timeSource
    ) {
        self.init(
            error: error,
            request: request,
            body: body,
            response: response,
            context: AttemptContext(
                id: AttemptID(call: 1, attempt: attempt), maxAttempts: 4, deadline: timeLeft,
                method: request.method, path: request.path ?? "/", time: time),
            timeLeft: timeLeft,
            delayBefore: delayBefore,
            history: history
        )
    }
}

extension AttemptRecord {
    /// A failed attempt's record, its failure given as an HTTP status.
    static func failed(
        _ number: Int, status: Int, handler: String?, duration: Duration = .milliseconds(20)
    ) -> AttemptRecord {
        AttemptRecord(
            number: number, status: status,
            chain: ErrorChain(HTTPError(response: HTTPResponse(status: .init(code: status)))),
            delayBefore: .zero, duration: duration, handler: handler)
    }
}

extension Endpoint {
    /// Decodes `response` as the data manager would, with a default decoder.
    func decode(_ response: TransportResponse) throws(JSONError) -> Response {
        try decode(response, JSONDecoder())
    }
}
