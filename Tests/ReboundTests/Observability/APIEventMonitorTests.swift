import Foundation
import HTTPTypes
import Rebound
import ReboundTesting
import Testing

/// Records every event it hears.
final class RecordingMonitor: APIEventMonitor, @unchecked Sendable {
    private let recorded = Locked<[APIEvent]>([])
    var events: [APIEvent] { recorded.withLock { $0 } }

    func receive(_ event: APIEvent) {
        recorded.withLock { $0.append(event) }
    }
}

@Suite("The event monitor hears every call and attempt")
struct APIEventMonitorTests {
    @Test func aRetriedCallIsHeardStepByStep() async throws {
        let monitor = RecordingMonitor()
        let transport = ScriptedTransport([.status(.badGateway), .json(#"{"id":7,"title":"t"}"#)])
        let api = try APIDataManager(
            baseURL: "https://api.example.com/v1", transport: transport, handlers: [temporaryHandler()],
            time: TestClock().timeSource, monitor: monitor)
        _ = try await api.send(HTTPClientTelemetryTests.getTask(7))

        let events = monitor.events
        #expect(
            events.map(\.kind) == [
                .callStarted, .attemptStarted, .attemptSent, .attemptFailed, .handlerDecided, .waiting,
                .attemptStarted, .attemptSent, .attemptSucceeded, .callSucceeded,
            ])
        #expect(Set(events.map(\.call)).count == 1)
        #expect(events.allSatisfy { $0.endpoint == "GET /v1/tasks/{}" })
        #expect(events.map(\.attempt) == [nil, 1, 1, 1, 1, nil, 2, 2, 2, nil])
        #expect(events[3].status == 502)
        #expect(events[3].chain?.short == "HT502")
        #expect(events[4].handler == "BackendTemporaryErrorHandler")
        #expect(events[4].delay == .milliseconds(200))
        #expect(events[5].delay == .milliseconds(200))
        #expect(events[8].status == 200)
        #expect(events[8].transfer != nil)
        #expect(events[9].status == 200)
    }

    @Test func aRefusedAttemptAndAFailedCallAreHeard() async throws {
        struct Refuser: RecoverableErrorHandler {
            func recover(from failure: FailedAttempt) async throws -> RecoveryDecision { .cannotHandle }
            func prepare(_ request: inout HTTPRequest) async throws { throw NetworkError(.invalidRequest) }
        }
        let monitor = RecordingMonitor()
        let api = try APIDataManager(
            baseURL: "https://api.example.com", transport: ScriptedTransport([]), handlers: [Refuser()],
            time: TestClock().timeSource, monitor: monitor)
        _ = await #expect(throws: APIError.self) { try await api.send(SampleEndpoints.listTasks) }

        let events = monitor.events
        #expect(events.map(\.kind) == [.callStarted, .attemptStarted, .attemptRefused, .callFailed])
        #expect(events[2].handler == "Refuser")
        #expect(events[2].chain?.short == "NE19")
        #expect(events[3].chain?.short == "NE19")
    }
}
