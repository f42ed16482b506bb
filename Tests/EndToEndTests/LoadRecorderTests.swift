import Testing

@testable import Rebound
@testable import ReboundCLI

/// What `rebound load` counts from the pipeline's events.
@Suite struct LoadRecorderTests {
    /// A hedge counts once it is sent: one that the call's first answer ends while its handlers
    /// still prepare it never reached the server.
    @Test func aHedgeCountsOnlyOnceItIsSent() {
        let recorder = LoadRecorder(pipelineStart: .zero)
        func event(_ kind: APIEvent.Kind, call: UInt64, attempt: Int? = nil) {
            recorder.receive(APIEvent(kind: kind, call: call, attempt: attempt, endpoint: "GET /tail"))
        }
        // Call 1: its hedge is sent and wins.
        event(.attemptSent, call: 1, attempt: 1)
        event(.hedging, call: 1, attempt: 2)
        event(.attemptStarted, call: 1, attempt: 2)
        event(.attemptSent, call: 1, attempt: 2)
        event(.attemptAbandoned, call: 1, attempt: 1)
        event(.callSucceeded, call: 1)
        // Call 2: the first attempt answers while the hedge is still being prepared.
        event(.attemptSent, call: 2, attempt: 1)
        event(.hedging, call: 2, attempt: 2)
        event(.attemptStarted, call: 2, attempt: 2)
        event(.attemptAbandoned, call: 2, attempt: 2)
        event(.callSucceeded, call: 2)
        // Call 3: cancelled while its hedge was being prepared.
        event(.attemptSent, call: 3, attempt: 1)
        event(.hedging, call: 3, attempt: 2)
        event(.callFailed, call: 3)

        #expect(recorder.current.attempts == 4)
        #expect(recorder.current.hedges == 1)
        #expect(recorder.current.hedgesPreparing.isEmpty)
    }
}
