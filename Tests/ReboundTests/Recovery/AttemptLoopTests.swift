import HTTPTypes
import Testing

@testable import Rebound

/// The attempt loop's transitions, as tables of events and the actions they return.
@Suite struct AttemptLoopTests {
    /// An action, reduced to what a table compares.
    enum Step: Equatable, CustomStringConvertible {
        case prepare(Int)
        case send(Int)
        case recover(Int)
        case wait(Duration)
        case hedge(Duration)
        case cancel(Int)
        case report(Int, AttemptLoop.Ending)
        case success(Int)
        case failure(String)

        /// The step of `action`; a `finish` reads how the call ended from `loop`.
        init(_ action: AttemptLoop.Action, of loop: AttemptLoop) {
            switch action {
            case .prepare(let id): self = .prepare(id.attempt)
            case .send(let id, _): self = .send(id.attempt)
            case .recover(let id): self = .recover(id.attempt)
            case .wait(let delay): self = .wait(delay)
            case .scheduleHedge(let delay): self = .hedge(delay)
            case .cancel(let id): self = .cancel(id.attempt)
            case .report(let id, let ending): self = .report(id.attempt, ending)
            case .finish:
                switch loop.result {
                case .success(let id): self = .success(id.attempt)
                case .failure(let cause): self = .failure(ErrorChain(cause).short)
                case nil: self = .failure("finished without a result")
                }
            }
        }

        var description: String {
            switch self {
            case .prepare(let n): "prepare #\(n)"
            case .send(let n): "send #\(n)"
            case .recover(let n): "recover #\(n)"
            case .wait(let d): "wait \(d)"
            case .hedge(let d): "hedge after \(d)"
            case .cancel(let n): "cancel #\(n)"
            case .report(let n, let e): "report #\(n) \(e)"
            case .success(let n): "success #\(n)"
            case .failure(let chain): "failure \(chain)"
            }
        }
    }

    static func loop(maxAttempts: Int = 3, deadline: Duration = .seconds(30), hedgeDelay: Duration? = nil)
        -> AttemptLoop
    {
        AttemptLoop(
            call: 1, limits: RequestLimits(maxAttempts: maxAttempts, deadline: deadline), startedAt: .zero,
            hedgeDelay: hedgeDelay)
    }

    static func id(_ attempt: Int) -> AttemptID { AttemptID(call: 1, attempt: attempt) }

    static let unavailable = HTTPError(response: HTTPResponse(status: .serviceUnavailable))
    static let notFound = HTTPError(response: HTTPResponse(status: .notFound))

    @Test func aFirstSuccessPreparesSendsReportsAndFinishes() {
        var loop = Self.loop()
        #expect(loop.after { $0.start(now: .zero) } == [.prepare(1)])
        #expect(loop.after { $0.prepared(Self.id(1), now: .zero) } == [.send(1)])
        #expect(
            loop.after { $0.succeeded(Self.id(1), status: 200, now: .milliseconds(5)) } == [
                .report(1, .succeeded), .success(1),
            ])
        #expect(loop.history.map(\.number) == [1])
        #expect(loop.history.first?.duration == .milliseconds(5))
        #expect(loop.isFinished)
    }

    @Test func aRecoveredFailureWaitsAndSendsAgain() {
        var loop = Self.loop()
        loop.start(now: .zero)
        loop.prepared(Self.id(1), now: .zero)
        #expect(
            loop.after {
                $0.failed(Self.id(1), error: Self.unavailable, status: 503, cancelled: false, now: .seconds(1))
            } == [.recover(1)])
        #expect(
            loop.after { $0.decided(Self.id(1), .retry(handler: "H", delay: .seconds(2)), now: .seconds(1)) } == [
                .report(1, .failed(record: 0)), .wait(.seconds(2)),
            ])
        #expect(loop.after { $0.waited(now: .seconds(3)) } == [.prepare(2)])
        #expect(loop.after { $0.prepared(Self.id(2), now: .seconds(3)) } == [.send(2)])
        #expect(
            loop.after { $0.succeeded(Self.id(2), status: 200, now: .seconds(4)) } == [
                .report(2, .succeeded), .success(2),
            ])
        #expect(loop.history.map(\.handler) == ["H", nil])
        #expect(loop.history.map(\.delayBefore) == [.zero, .seconds(2)])
        #expect(loop.history.first?.chain?.short == "HT503")
    }

    @Test func theLastAttemptIsNotOfferedToTheHandlersAndEndsAsRetriesExhausted() {
        var loop = Self.loop(maxAttempts: 2)
        loop.start(now: .zero)
        loop.prepared(Self.id(1), now: .zero)
        loop.failed(Self.id(1), error: Self.unavailable, status: 503, cancelled: false, now: .zero)
        loop.decided(Self.id(1), .retry(handler: "H", delay: .zero), now: .zero)
        loop.prepared(Self.id(2), now: .zero)
        #expect(
            loop.after { $0.failed(Self.id(2), error: Self.unavailable, status: 503, cancelled: false, now: .zero) }
                == [.report(2, .failed(record: 1)), .failure("RE1-HT503")])
    }

    /// libcurl words one failure differently from attempt to attempt ("after 0 ms", "after 1 ms";
    /// "Empty reply from server", "Connection died"): the same chain with another reason is
    /// still the failure the handler was retrying.
    @Test func theSameFailureInOtherWordsStillEndsAsRetriesExhausted() {
        var loop = Self.loop(maxAttempts: 2)
        loop.start(now: .zero)
        loop.prepared(Self.id(1), now: .zero)
        let first = NetworkError(.cannotConnect, reason: "Failed to connect after 0 ms", context: ["curlCode": "7"])
        let second = NetworkError(.cannotConnect, reason: "Failed to connect after 1 ms", context: ["curlCode": "7"])
        loop.failed(Self.id(1), error: first, status: nil, cancelled: false, now: .zero)
        loop.decided(Self.id(1), .retry(handler: "H", delay: .zero), now: .zero)
        loop.prepared(Self.id(2), now: .zero)
        #expect(
            loop.after { $0.failed(Self.id(2), error: second, status: nil, cancelled: false, now: .zero) } == [
                .report(2, .failed(record: 1)), .failure("RE1-NE6"),
            ])
    }

    @Test func aDifferentLastFailureIsItselfNotRetriesExhausted() {
        var loop = Self.loop(maxAttempts: 2)
        loop.start(now: .zero)
        loop.prepared(Self.id(1), now: .zero)
        loop.failed(Self.id(1), error: Self.unavailable, status: 503, cancelled: false, now: .zero)
        loop.decided(Self.id(1), .retry(handler: "H", delay: .zero), now: .zero)
        loop.prepared(Self.id(2), now: .zero)
        #expect(
            loop.after { $0.failed(Self.id(2), error: Self.notFound, status: 404, cancelled: false, now: .zero) } == [
                .report(2, .failed(record: 1)), .failure("HT404"),
            ])
    }

    @Test(arguments: [
        (AttemptLoop.Decision.none, "HT503"),
        (.handlerFailed(RecoveryError(.refreshFailed)), "RE10"),
        (.retry(handler: "H", delay: .seconds(30)), "RE2-HT503"),
    ])
    func aFailureNobodyRecoversFromEndsTheCall(decision: AttemptLoop.Decision, chain: String) {
        var loop = Self.loop()
        loop.start(now: .zero)
        loop.prepared(Self.id(1), now: .zero)
        loop.failed(Self.id(1), error: Self.unavailable, status: 503, cancelled: false, now: .seconds(1))
        #expect(
            loop.after { $0.decided(Self.id(1), decision, now: .seconds(1)) } == [
                .report(1, .failed(record: 0)), .failure(chain),
            ])
    }

    @Test func aRefusalInPrepareEndsTheCallWithoutSending() {
        var loop = Self.loop()
        loop.start(now: .zero)
        #expect(
            loop.after { $0.refused(Self.id(1), error: RecoveryError(.handlerFailed), now: .zero) }
                == [.report(1, .refused), .failure("RE30")])
        #expect(loop.history.isEmpty)
    }

    @Test func theDeadlinePassingWhilePreparingRefusesTheAttempt() {
        var loop = Self.loop(deadline: .seconds(10))
        loop.start(now: .zero)
        #expect(
            loop.after { $0.prepared(Self.id(1), now: .seconds(10)) } == [
                .report(1, .refused), .failure("RE2"),
            ])
    }

    @Test func theTimeoutOfAnAttemptIsShortenedToTheTimeLeft() {
        var loop = AttemptLoop(
            call: 1, limits: RequestLimits(deadline: .seconds(12), attemptTimeout: .seconds(10)), startedAt: .zero)
        #expect(loop.after { $0.start(now: .zero) } == [.prepare(1)])
        loop.prepared(Self.id(1), now: .seconds(5))
        guard case .send(_, let timeout) = loop.nextAction() else {
            Issue.record("expected a send")
            return
        }
        #expect(timeout == .seconds(7))
    }

    @Test func cancellationWhileWaitingEndsTheCallOverTheLastFailure() {
        var loop = Self.loop()
        loop.start(now: .zero)
        loop.prepared(Self.id(1), now: .zero)
        loop.failed(Self.id(1), error: Self.unavailable, status: 503, cancelled: false, now: .zero)
        loop.decided(Self.id(1), .retry(handler: "H", delay: .seconds(1)), now: .zero)
        #expect(loop.after { $0.cancelled(now: .zero) } == [.failure("RE40-HT503")])
    }

    @Test func anAnswerThatCameBeforeTheCancellationIsAFailedAttempt() {
        var loop = Self.loop()
        loop.start(now: .zero)
        loop.prepared(Self.id(1), now: .zero)
        #expect(
            loop.after { $0.failed(Self.id(1), error: Self.unavailable, status: 503, cancelled: true, now: .zero) } == [
                .report(1, .failed(record: 0)), .failure("RE40-HT503"),
            ])
    }

    @Test func aCancelledTransferEndsTheCallAndIsReportedOnce() {
        var loop = Self.loop()
        loop.start(now: .zero)
        loop.prepared(Self.id(1), now: .zero)
        #expect(
            loop.after {
                $0.failed(Self.id(1), error: NetworkError(.cancelled), status: nil, cancelled: true, now: .zero)
            } == [
                .report(1, .cancelled), .failure("NE\(NetworkErrorCode.cancelled.rawValue)"),
            ])
        // Events after the end change nothing.
        #expect(loop.after { $0.cancelled(now: .zero) }.isEmpty)
        #expect(loop.after { $0.succeeded(Self.id(1), status: 200, now: .zero) }.isEmpty)
    }

    // MARK: - Two attempts in flight

    @Test func aScriptedRaceOfTwoAttemptsIsWonByTheFirstSuccessAndTheLoserIsAbandoned() {
        var loop = Self.loop(hedgeDelay: .milliseconds(100))
        loop.start(now: .zero)
        #expect(
            loop.after { $0.prepared(Self.id(1), now: .zero) } == [.send(1), .hedge(.milliseconds(100))])
        // The first has not answered after the delay: a second attempt goes out beside it.
        #expect(loop.after { $0.hedgeDue(now: .milliseconds(100)) } == [.prepare(2)])
        #expect(loop.after { $0.prepared(Self.id(2), now: .milliseconds(100)) } == [.send(2)])
        #expect(loop.inFlight == 2)
        // The second answers first: it wins, the first is cancelled and abandoned.
        #expect(
            loop.after { $0.succeeded(Self.id(2), status: 200, now: .milliseconds(130)) } == [
                .cancel(1), .report(2, .succeeded), .report(1, .abandoned), .success(2),
            ])
        // The loser's late answer changes nothing.
        #expect(loop.after { $0.succeeded(Self.id(1), status: 200, now: .milliseconds(150)) }.isEmpty)
        #expect(loop.history.map(\.number) == [2])
    }

    @Test func inARaceAFailureThatWouldBeRetriedSendsTheNextAttemptAtOnce() {
        var loop = Self.loop(maxAttempts: 3, hedgeDelay: .milliseconds(100))
        loop.start(now: .zero)
        loop.prepared(Self.id(1), now: .zero)
        loop.hedgeDue(now: .milliseconds(100))
        loop.prepared(Self.id(2), now: .milliseconds(100))
        #expect(
            loop.after {
                $0.failed(Self.id(2), error: Self.unavailable, status: 503, cancelled: false, now: .milliseconds(120))
            } == [.recover(2)])
        #expect(
            loop.after { $0.decided(Self.id(2), .retry(handler: "H", delay: .seconds(1)), now: .milliseconds(120)) }
                == [.report(2, .failed(record: 0)), .prepare(3)])
        // No more hedges beyond the maximum.
        #expect(loop.after { $0.hedgeDue(now: .milliseconds(200)) }.isEmpty)
        // The first fails too, with no attempt left, but the third is still out: no end yet.
        #expect(
            loop.after {
                $0.failed(Self.id(1), error: Self.unavailable, status: 503, cancelled: false, now: .milliseconds(210))
            } == [.report(1, .failed(record: 1))])
        loop.prepared(Self.id(3), now: .milliseconds(220))
        #expect(
            loop.after { $0.succeeded(Self.id(3), status: 200, now: .milliseconds(300)) } == [
                .report(3, .succeeded), .success(3),
            ])
    }

    @Test func cancellationWithTwoAttemptsInFlightCancelsAndReportsBoth() {
        var loop = Self.loop(hedgeDelay: .milliseconds(100))
        loop.start(now: .zero)
        loop.prepared(Self.id(1), now: .zero)
        loop.hedgeDue(now: .milliseconds(100))
        loop.prepared(Self.id(2), now: .milliseconds(100))
        #expect(
            loop.after { $0.cancelled(now: .milliseconds(110)) } == [
                .cancel(1), .report(1, .cancelled), .cancel(2), .report(2, .cancelled), .failure("RE40-CA1"),
            ])
    }
}

extension AttemptLoop.Decision: CustomTestStringConvertible {
    public var testDescription: String {
        switch self {
        case .none: "none"
        case .handlerFailed: "handler failed"
        case .retry(let handler, let delay): "retry by \(handler) after \(delay)"
        }
    }
}

extension AttemptLoop {
    /// The actions that `event` queued, as steps (whatever was queued before is drained first).
    mutating func after(_ event: (inout AttemptLoop) -> Void) -> [AttemptLoopTests.Step] {
        while nextAction() != nil {}
        event(&self)
        var steps: [AttemptLoopTests.Step] = []
        while let action = nextAction() { steps.append(.init(action, of: self)) }
        return steps
    }
}
