import Foundation
import HTTPTypes
import Rebound
import ReboundTesting
import Testing

/// The hooks as an app's handler sees them: written here, outside the module, with the public
/// protocol alone.
@Suite struct HandlerHookTests {
    /// Records every hook call it gets.
    final class Recorder: RecoverableErrorHandler, Sendable {
        let name: String
        private let calls = Locked<[String]>([])
        private let contexts = Locked<[AttemptContext]>([])
        private let answer: RecoveryDecision

        init(_ name: String = "Recorder", answer: RecoveryDecision = .cannotHandle) {
            self.name = name
            self.answer = answer
        }

        var log: [String] { calls.withLock { $0 } }
        var prepared: [AttemptContext] { contexts.withLock { $0 } }

        func recover(from failure: FailedAttempt) async throws -> RecoveryDecision {
            calls.withLock { $0.append("recover #\(failure.attempt)") }
            return answer
        }

        func prepare(_ request: inout HTTPRequest, context: AttemptContext) async throws {
            calls.withLock { $0.append("prepare #\(context.attempt)") }
            contexts.withLock { $0.append(context) }
        }

        func attemptDidEnd(_ outcome: AttemptOutcome, context: AttemptContext) async {
            let kind =
                switch outcome {
                case .succeeded: "succeeded"
                case .failed(_, let record): "failed" + (record.handler.map { " → \($0)" } ?? "")
                case .cancelled: "cancelled"
                case .refused(let handler, _): "refused by \(handler ?? "the deadline")"
                case .abandoned: "abandoned"
                }
            calls.withLock { $0.append("#\(context.attempt) \(kind)") }
        }
    }

    /// Refuses every attempt in `prepare`, as an open breaker would.
    struct Refuser: RecoverableErrorHandler {
        struct Open: Error {}

        func recover(from failure: FailedAttempt) async throws -> RecoveryDecision { .cannotHandle }

        func prepare(_ request: inout HTTPRequest, context: AttemptContext) async throws {
            throw Open()
        }
    }

    @Test func everyPreparedAttemptEndsInExactlyOneOutcomeAfterTheHandlersDecided() async throws {
        let recorder = Recorder()
        let transport = ScriptedTransport([.status(.serviceUnavailable), .tasks])
        let api = try makeManager(transport, handlers: [recorder, temporaryHandler()])
        _ = try await api.send(SampleEndpoints.listTasks)
        #expect(
            recorder.log == [
                "prepare #1", "recover #1", "#1 failed → BackendTemporaryErrorHandler", "prepare #2", "#2 succeeded",
            ])
    }

    @Test func theLastAttemptIsNotOfferedToTheHandlersButStillEnds() async throws {
        let recorder = Recorder()
        let transport = ScriptedTransport([.status(.serviceUnavailable), .status(.serviceUnavailable)])
        let api = try makeManager(
            transport, handlers: [recorder, temporaryHandler()], limits: RequestLimits(maxAttempts: 2))
        let error = await #expect(throws: APIError.self) { try await api.send(SampleEndpoints.listTasks) }
        #expect(error?.chain.short == "AP8-RE1-HT503")
        #expect(
            recorder.log == [
                "prepare #1", "recover #1", "#1 failed → BackendTemporaryErrorHandler", "prepare #2", "#2 failed",
            ])
    }

    @Test func aRefusalReachesTheHandlersBeforeTheRefuserAndNoneAfter() async throws {
        let before = Recorder("Before")
        let after = Recorder("After")
        let transport = ScriptedTransport([.tasks])
        let api = try makeManager(transport, handlers: [before, Refuser(), after])
        let error = await #expect(throws: APIError.self) { try await api.send(SampleEndpoints.listTasks) }
        #expect(error?.chain.short == "AP8-RE30-XX0")
        #expect(transport.requests.isEmpty)
        #expect(before.log == ["prepare #1", "#1 refused by Refuser"])
        #expect(after.log.isEmpty)
    }

    @Test func aTransferCutShortByCancellationEndsAsCancelled() async throws {
        let recorder = Recorder()
        let transport = ScriptedTransport([.fail(NetworkError(.cancelled))])
        let api = try makeManager(transport, handlers: [recorder, temporaryHandler()])
        let error = await #expect(throws: APIError.self) { try await api.send(SampleEndpoints.listTasks) }
        #expect(error?.chain.short == "AP8-NE\(NetworkErrorCode.cancelled.rawValue)")
        #expect(recorder.log == ["prepare #1", "#1 cancelled"])
    }

    @Test func theRetryBudgetHearsTheRetryableFailureOfTheLastAttempt() async throws {
        let budget = RetryBudget(maxTokens: 10)
        let transport = ScriptedTransport([.status(.serviceUnavailable), .status(.serviceUnavailable)])
        let api = try makeManager(
            transport, handlers: [temporaryHandler(budget: budget)], limits: RequestLimits(maxAttempts: 2))
        _ = await #expect(throws: APIError.self) { try await api.send(SampleEndpoints.listTasks) }
        // One token for each of the two retryable failures, though only the first was offered
        // to the handler.
        #expect(budget.tokens == 8)
    }

    @Test func aFailureAnotherHandlerRecoveredFromIsStillChargedToTheBudget() async throws {
        let budget = RetryBudget(maxTokens: 10)
        let transport = ScriptedTransport([.status(.serviceUnavailable), .tasks])
        let api = try makeManager(
            transport, handlers: [Recorder(answer: .retryNow), temporaryHandler(budget: budget)])
        _ = try await api.send(SampleEndpoints.listTasks)
        #expect(budget.tokens == 9.1)
    }

    @Test func theContextCarriesTheAttemptTheDeadlineAndTheEndpointsOptions() async throws {
        enum Priority: EndpointOptionKey { static let defaultValue = 0 }
        let recorder = Recorder()
        let clock = TestClock()
        let transport = ScriptedTransport([.status(.badGateway), .tasks])
        let api = try makeManager(
            transport, handlers: [recorder, temporaryHandler()], limits: RequestLimits(deadline: .seconds(20)),
            clock: clock)
        var endpoint = SampleEndpoints.listTasks
        endpoint.options[Priority.self] = 5
        _ = try await api.send(endpoint)
        let contexts = recorder.prepared
        #expect(contexts.map(\.attempt) == [1, 2])
        #expect(contexts.map { $0.options[Priority.self] } == [5, 5])
        #expect(contexts.map(\.endpoint) == ["GET /tasks", "GET /tasks"])
        #expect(Set(contexts.map(\.id.call)).count == 1)
        #expect(contexts.allSatisfy { $0.deadline == .seconds(20) && $0.maxAttempts == 4 })
        #expect(contexts.last?.timeLeft == .seconds(20) - .milliseconds(200))
        #expect(contexts.last?.time.date() == Date(timeIntervalSince1970: 1_700_000_000.2))
    }

    @Test func aSkippedHandlerIsLeftOutOfEveryHook() async throws {
        let byName = Recorder("ByName")
        let byType = Recorder("ByType")
        let kept = Recorder("Kept")
        let transport = ScriptedTransport([.status(.serviceUnavailable), .tasks, .status(.serviceUnavailable), .tasks])
        let api = try makeManager(transport, handlers: [byName, byType, kept, temporaryHandler()])
        _ = try await api.send(SampleEndpoints.listTasks.skipping(.named("ByName")))
        #expect(byName.log.isEmpty)
        #expect(byType.log.count == 5)
        _ = try await api.send(SampleEndpoints.listTasks.skipping(.type(Recorder.self)))
        #expect(byType.log.count == 5)
        #expect(kept.log.count == 5)
        let skippingRetries = SampleEndpoints.listTasks.skipping(.type(BackendTemporaryErrorHandler.self))
        let failing = ScriptedTransport([.status(.serviceUnavailable), .tasks])
        let error = await #expect(throws: APIError.self) {
            try await makeManager(failing, handlers: [temporaryHandler()]).send(skippingRetries)
        }
        #expect(error?.chain.short == "AP8-HT503")
    }

    /// A handler whose `prepare` suspends until a gate that never opens, as a keychain read that
    /// hangs would.
    struct HangingPreparer: RecoverableErrorHandler {
        let gate: Gate

        func recover(from failure: FailedAttempt) async throws -> RecoveryDecision { .cannotHandle }

        func prepare(_ request: inout HTTPRequest, context: AttemptContext) async throws {
            await gate.wait()
        }
    }

    @Test func anAppsHookThatHangsIsLeftBehindAtTheDeadlineOnATestClock() async throws {
        let clock = TestClock(mode: .manual)
        let gate = Gate()
        let transport = ScriptedTransport([.tasks])
        let api = try makeManager(
            transport, handlers: [HangingPreparer(gate: gate)], limits: RequestLimits(deadline: .seconds(5)),
            clock: clock)
        let call = Task { try await api.send(SampleEndpoints.listTasks) }
        // The hook is raced against the deadline: its timer is the one sleeper.
        try await clock.advance(by: .seconds(5), whenSleepersReach: 1)
        let error = await #expect(throws: APIError.self) { try await call.value }
        #expect(error?.chain.short == "AP8-RE2")
        #expect(transport.requests.isEmpty)
        gate.open()
    }

    /// Prepares inline while it holds a ticket; without one it hands over to its asynchronous
    /// `prepare`, which suspends until `gate` opens, as a rate limiter waits for a token.
    final class TicketHandler: RecoverableErrorHandler, Sendable {
        static let field = HTTPField.Name("X-Ticket")!
        static let seen = HTTPField.Name("X-Seen-Inline")!
        private let tickets: Locked<Int>
        private let calls = Locked<[String]>([])
        let gate = Gate()

        init(tickets: Int) {
            self.tickets = Locked(tickets)
        }

        var log: [String] { calls.withLock { $0 } }

        var hooks: HandlerHooks { [.prepareSynchronously] }

        func recover(from failure: FailedAttempt) async throws -> RecoveryDecision { .cannotHandle }

        func prepareSynchronously(
            _ request: inout HTTPRequest, context: AttemptContext
        ) throws -> SynchronousPreparation {
            calls.withLock { $0.append("inline #\(context.attempt)") }
            request.headerFields[Self.seen] = "yes"
            let took = tickets.withLock { tickets in
                guard tickets > 0 else { return false }
                tickets -= 1
                return true
            }
            guard took else { return .continueAsynchronously }
            request.headerFields[Self.field] = "inline"
            return .done
        }

        func prepare(_ request: inout HTTPRequest, context: AttemptContext) async throws {
            calls.withLock { $0.append("suspending #\(context.attempt)") }
            await gate.wait()
            request.headerFields[Self.field] = "waited"
        }
    }

    @Test func aSynchronousPrepareThatIsDoneIsTheOnlyPrepareCalled() async throws {
        let handler = TicketHandler(tickets: 1)
        let transport = ScriptedTransport([.tasks])
        let api = try makeManager(transport, handlers: [handler])
        _ = try await api.send(SampleEndpoints.listTasks)
        #expect(handler.log == ["inline #1"])
        #expect(transport.requests.first?.request.headerFields[TicketHandler.field] == "inline")
    }

    @Test func aSynchronousPrepareHandsOverToTheAsynchronousOneWithTheRequestAsItLeftIt() async throws {
        let handler = TicketHandler(tickets: 0)
        let transport = ScriptedTransport([.tasks])
        // A manual clock: the deadline's timer never fires while the hook waits.
        let api = try makeManager(transport, handlers: [handler], clock: TestClock(mode: .manual))
        let call = Task { try await api.send(SampleEndpoints.listTasks) }
        #expect(await eventually { handler.log == ["inline #1", "suspending #1"] })
        #expect(transport.requests.isEmpty)
        handler.gate.open()
        _ = try await call.value
        let sent = try #require(transport.requests.first?.request)
        #expect(sent.headerFields[TicketHandler.field] == "waited")
        #expect(sent.headerFields[TicketHandler.seen] == "yes")
    }

    @Test func aHandedOverPrepareIsLeftBehindAtTheDeadline() async throws {
        let clock = TestClock(mode: .manual)
        let handler = TicketHandler(tickets: 0)
        let recorder = Recorder()
        let transport = ScriptedTransport([.tasks])
        let api = try makeManager(
            transport, handlers: [recorder, handler], limits: RequestLimits(deadline: .seconds(5)), clock: clock)
        let call = Task { try await api.send(SampleEndpoints.listTasks) }
        try await clock.advance(by: .seconds(5), whenSleepersReach: 1)
        let error = await #expect(throws: APIError.self) { try await call.value }
        #expect(error?.chain.short == "AP8-RE2")
        #expect(transport.requests.isEmpty)
        #expect(recorder.log == ["prepare #1", "#1 refused by TicketHandler"])
        handler.gate.open()
    }

    @Test func aSynchronousPrepareThatThrowsRefusesTheAttemptWithoutTheAsynchronousOne() async throws {
        struct Closed: Error {}
        struct InlineRefuser: RecoverableErrorHandler {
            var hooks: HandlerHooks { [.prepareSynchronously, .prepare] }
            func recover(from failure: FailedAttempt) async throws -> RecoveryDecision { .cannotHandle }
            func prepareSynchronously(
                _ request: inout HTTPRequest, context: AttemptContext
            ) throws -> SynchronousPreparation {
                throw Closed()
            }
            func prepare(_ request: inout HTTPRequest, context: AttemptContext) async throws {
                Issue.record("the asynchronous prepare was called after the synchronous one refused")
            }
        }
        let transport = ScriptedTransport([.tasks])
        let api = try makeManager(transport, handlers: [InlineRefuser()])
        let error = await #expect(throws: APIError.self) { try await api.send(SampleEndpoints.listTasks) }
        #expect(error?.chain.short == "AP8-RE30-XX0")
        #expect(transport.requests.isEmpty)
    }

    @Test func aSuccessfulCallReturnsItsHistoryAndResponse() async throws {
        let transport = ScriptedTransport([.status(.serviceUnavailable), .tasks])
        let api = try makeManager(transport, handlers: [temporaryHandler()])
        let answer = try await api.response(for: SampleEndpoints.listTasks)
        #expect(answer.value.map(\.id) == [1])
        #expect(answer.response.status == .ok)
        #expect(answer.history.attempts.map(\.status) == [503, 200])
        #expect(answer.history.attempts.map(\.error) == ["HT503", nil])
        #expect(answer.history.attempts.first?.chain?.full.hasPrefix("HTTPError") == true)
        #expect(answer.history.attempts.map(\.handler) == ["BackendTemporaryErrorHandler", nil])
    }
}
