import HTTPTypes
import PropertyBased
import Testing

@testable import Rebound

/// The attempt loop's hedging: its transitions as tables, and its laws over random races.
@Suite struct AttemptLoopHedgingTests {
    typealias Step = AttemptLoopTests.Step

    static func id(_ attempt: Int) -> AttemptID { AttemptID(call: 1, attempt: attempt) }
    static let unavailable = AttemptLoopTests.unavailable

    /// A hedged loop with attempt 1 (sent at 0) and its hedge, attempt 2 (sent at 100 ms), in flight.
    static func twoInFlight() -> AttemptLoop {
        var loop = AttemptLoopTests.loop(hedgeDelay: .milliseconds(100))
        loop.start(now: .zero)
        loop.prepared(id(1), now: .zero)
        loop.hedgeDue(now: .milliseconds(100))
        loop.prepared(id(2), now: .milliseconds(100))
        return loop
    }

    /// A loop hedged after 100 ms with `maxAttempts`, its first attempt sent at 0.
    static func firstSent(maxAttempts: Int) -> AttemptLoop {
        var loop = AttemptLoop(
            call: 1, limits: RequestLimits(maxAttempts: maxAttempts), startedAt: .zero,
            hedgeDelay: .milliseconds(100))
        loop.start(now: .zero)
        loop.prepared(id(1), now: .zero)
        return loop
    }

    @Test func aFailureThatWouldBeRetriedSendsTheNextHedgeAtOnceEvenWithNoneInFlight() {
        var loop = Self.firstSent(maxAttempts: 3)
        loop.failed(Self.id(1), error: Self.unavailable, status: 503, cancelled: false, now: .milliseconds(10))
        // Without hedging this would be `wait 1 s`: a hedged endpoint is not also retried with backoff.
        #expect(
            loop.after { $0.decided(Self.id(1), .retry(handler: "H", delay: .seconds(1)), now: .milliseconds(10)) }
                == [.report(1, .failed(record: 0)), .prepare(2)])
        #expect(loop.attempt(Self.id(2))?.delayBefore == .zero)
    }

    @Test func eachAttemptSentSetsTheNextHedgeWhileFewerThanTheBoundAreInFlight() {
        var loop = AttemptLoop(
            call: 1, limits: RequestLimits(maxAttempts: 5), startedAt: .zero, hedgeDelay: .milliseconds(100),
            maxHedges: 2)
        loop.start(now: .zero)
        #expect(loop.after { $0.prepared(Self.id(1), now: .zero) } == [.send(1), .hedge(.milliseconds(100))])
        loop.hedgeDue(now: .milliseconds(100))
        #expect(
            loop.after { $0.prepared(Self.id(2), now: .milliseconds(100)) } == [.send(2), .hedge(.milliseconds(100))])
        loop.hedgeDue(now: .milliseconds(200))
        // Three in flight, the bound: no further timer, and a late one starts nothing.
        #expect(loop.after { $0.prepared(Self.id(3), now: .milliseconds(200)) } == [.send(3)])
        #expect(loop.after { $0.hedgeDue(now: .milliseconds(300)) }.isEmpty)
        #expect(loop.inFlight == 3)
    }

    @Test func theWinnersReportWaitsUntilEveryLosersTransferIsCancelled() {
        var loop = Self.twoInFlight()
        // The winner's handlers may take their time hearing of it (an asynchronous hook): the
        // loser's transfer is removed before they are asked, not after.
        #expect(
            loop.after { $0.succeeded(Self.id(1), status: 200, now: .milliseconds(120)) } == [
                .cancel(2), .report(1, .succeeded), .report(2, .abandoned), .success(1),
            ])
    }

    @Test func aFailureNoHandlerRetriesEndsAHedgedCallAtOnceAndAbandonsTheOthers() {
        var loop = Self.twoInFlight()
        loop.failed(Self.id(2), error: Self.unavailable, status: 404, cancelled: false, now: .milliseconds(110))
        // As gRPC does with a fatal status: the call ends with it, without waiting for the first.
        #expect(
            loop.after { $0.decided(Self.id(2), .none, now: .milliseconds(110)) } == [
                .report(2, .failed(record: 0)), .cancel(1), .report(1, .abandoned),
                .failure(ErrorChain(Self.unavailable).short),
            ])
        #expect(loop.inFlight == 0)
    }

    @Test func aHedgeRefusedAfterTheLastAttemptFailedLeavesTheCallWithThatFailure() {
        // Two attempts at most: the hedge is still being prepared (a limiter holds it back) when
        // the first fails for the last time. Refused, the hedge never went out: the call ends
        // with the failure of the attempt that did, not with the refusal.
        var loop = Self.firstSent(maxAttempts: 2)
        loop.hedgeDue(now: .milliseconds(100))
        #expect(
            loop.after {
                $0.failed(Self.id(1), error: Self.unavailable, status: 503, cancelled: false, now: .milliseconds(150))
            } == [.report(1, .failed(record: 0))])
        #expect(
            loop.after {
                $0.refused(
                    Self.id(2), error: RecoveryError(.handlerFailed), now: .milliseconds(160))
            } == [.report(2, .refused), .failure(ErrorChain(Self.unavailable).short)])
    }

    @Test func aRetryRefusedAfterAnotherAttemptFailedForTheLastTimeEndsTheCallWithItsRefusal() {
        // Attempt 2 failed and is retried; attempt 1 then fails, the third and last attempt being
        // prepared. Refused, that retry (not a hedge) is the call's last word.
        var loop = Self.twoInFlight()
        loop.failed(Self.id(2), error: Self.unavailable, status: 503, cancelled: false, now: .milliseconds(110))
        loop.decided(Self.id(2), .retry(handler: "H", delay: .zero), now: .milliseconds(110))
        loop.failed(Self.id(1), error: Self.unavailable, status: 503, cancelled: false, now: .milliseconds(120))
        #expect(
            loop.after {
                $0.refused(
                    Self.id(3), error: RecoveryError(.handlerFailed), now: .milliseconds(130))
            } == [.report(3, .refused), .failure("RE30")])
    }

    @Test func aHedgeTheDeadlineStopsAfterTheLastAttemptFailedLeavesTheCallWithThatFailure() {
        var loop = AttemptLoop(
            call: 1, limits: RequestLimits(maxAttempts: 2, deadline: .seconds(1)), startedAt: .zero,
            hedgeDelay: .milliseconds(100))
        loop.start(now: .zero)
        loop.prepared(Self.id(1), now: .zero)
        loop.hedgeDue(now: .milliseconds(100))
        loop.failed(Self.id(1), error: Self.unavailable, status: 503, cancelled: false, now: .milliseconds(900))
        // The hedge's handlers let it go only after the deadline: it is not sent.
        #expect(
            loop.after { $0.prepared(Self.id(2), now: .seconds(2)) }
                == [.report(2, .refused), .failure(ErrorChain(Self.unavailable).short)])
    }

    @Test func aRetryThatIsRefusedEndsAHedgedCallWithItsRefusal() {
        // Three attempts: the first failed and a handler retries it; that retry, refused, is the
        // call's last word, as it is without hedging.
        var loop = Self.firstSent(maxAttempts: 3)
        loop.failed(Self.id(1), error: Self.unavailable, status: 503, cancelled: false, now: .milliseconds(10))
        loop.decided(Self.id(1), .retry(handler: "H", delay: .zero), now: .milliseconds(10))
        #expect(
            loop.after {
                $0.refused(Self.id(2), error: RecoveryError(.handlerFailed), now: .milliseconds(20))
            } == [.report(2, .refused), .failure("RE30")])
    }

    @Test func aHedgedRetryIsSentAtOnceSoAWaitBeyondTheDeadlineDoesNotEndTheCall() {
        var loop = AttemptLoopTests.loop(deadline: .seconds(5), hedgeDelay: .milliseconds(100))
        loop.start(now: .zero)
        loop.prepared(Self.id(1), now: .zero)
        loop.failed(Self.id(1), error: Self.unavailable, status: 503, cancelled: false, now: .milliseconds(10))
        // A Retry-After of 30 s is not waited on a hedged endpoint, so it cannot pass the deadline.
        #expect(
            loop.after { $0.decided(Self.id(1), .retry(handler: "H", delay: .seconds(30)), now: .milliseconds(10)) }
                == [.report(1, .failed(record: 0)), .prepare(2)])
    }

    @Test func withoutAHedgeDelayATimerStartsNothing() {
        var loop = AttemptLoop(call: 1, limits: RequestLimits(maxAttempts: 3), startedAt: .zero)
        loop.start(now: .zero)
        #expect(loop.after { $0.prepared(Self.id(1), now: .zero) } == [.send(1)])
        #expect(loop.after { $0.hedgeDue(now: .milliseconds(100)) }.isEmpty)
    }

    // MARK: - Laws over random races

    /// How one attempt's transfer ends, `after` milliseconds once sent.
    struct Answer: Sendable, CustomStringConvertible {
        enum Kind: Int, CaseIterable { case success, retryable, final, timeout }
        var kind: Kind
        var after: Int

        var description: String { "\(kind)@\(after)ms" }
    }

    static let answers = zip(Gen.int(in: 0...3), Gen.int(in: 1...400))
        .map { kind, after in Answer(kind: Answer.Kind(rawValue: kind) ?? .success, after: after) }
        .array(of: 1...8)

    /// What a run of the loop did, as its shell saw it.
    struct Race {
        var sent: [Int] = []
        var mostInFlight = 0
        var reports: [Int: Int] = [:]
        var prepared: Set<Int> = []
        var cancelled: Set<Int> = []
        /// Attempts sent whose transfer neither answered nor was cancelled.
        var outstanding: Set<Int> = []
        var result: AttemptLoop.Result?
    }

    /// Plays the loop against `answers` (one per attempt, in order; the last repeats) on a
    /// simulated clock, as a shell would: answers and timers fire in time order, handlers retry
    /// retryable failures after 1 s.
    static func race(_ answers: [Answer], maxAttempts: Int, maxHedges: Int) -> Race {
        var loop = AttemptLoop(
            call: 1,
            limits: RequestLimits(maxAttempts: maxAttempts, deadline: .seconds(30), attemptTimeout: .seconds(2)),
            startedAt: .zero, hedgeDelay: .milliseconds(100), maxHedges: maxHedges)
        enum Event {
            case answer(Int)
            case timer(Int)
            case waited
        }
        var pending: [(at: Duration, event: Event)] = []
        var now = Duration.zero
        var generation = 0
        var race = Race()
        loop.start(now: now)
        while race.result == nil {
            while let action = loop.nextAction() {
                switch action {
                case .prepare(let id):
                    race.prepared.insert(id.attempt)
                    loop.prepared(id, now: now)
                case .send(let id, _):
                    race.sent.append(id.attempt)
                    race.outstanding.insert(id.attempt)
                    race.mostInFlight = max(race.mostInFlight, race.outstanding.count)
                    let answer = answers[min(id.attempt, answers.count) - 1]
                    let after = answer.kind == .timeout ? Duration.seconds(2) : .milliseconds(answer.after)
                    pending.append((now + after, .answer(id.attempt)))
                case .scheduleHedge(let delay):
                    generation += 1
                    pending.append((now + delay, .timer(generation)))
                case .recover(let id):
                    let kind = answers[min(id.attempt, answers.count) - 1].kind
                    let decision: AttemptLoop.Decision =
                        kind == .final ? .none : .retry(handler: "H", delay: .seconds(1))
                    loop.decided(id, decision, now: now)
                case .wait(let delay):
                    pending.append((now + delay, .waited))
                case .cancel(let id):
                    race.cancelled.insert(id.attempt)
                    race.outstanding.remove(id.attempt)
                case .report(let id, _):
                    race.reports[id.attempt, default: 0] += 1
                case .finish:
                    race.result = loop.result
                }
            }
            guard race.result == nil, let next = pending.indices.min(by: { pending[$0].at < pending[$1].at }) else {
                break
            }
            let (at, event) = pending.remove(at: next)
            now = at
            switch event {
            case .answer(let attempt):
                guard race.outstanding.remove(attempt) != nil else { continue }
                let kind = answers[min(attempt, answers.count) - 1].kind
                switch kind {
                case .success:
                    loop.succeeded(id(attempt), status: 200, now: now)
                case .retryable, .final:
                    loop.failed(id(attempt), error: unavailable, status: 503, cancelled: false, now: now)
                case .timeout:
                    loop.failed(id(attempt), error: NetworkError(.timeout), status: nil, cancelled: false, now: now)
                }
            case .timer(let fired):
                if fired == generation { loop.hedgeDue(now: now) }
            case .waited:
                loop.waited(now: now)
            }
        }
        return race
    }

    @Test func hedgingNeverSendsMoreThanItsBoundAndAlwaysCancelsTheLosers() async {
        await propertyCheck(input: Self.answers, Gen.int(in: 1...6), Gen.int(in: 1...4)) {
            answers, maxAttempts, maxHedges in
            let race = Self.race(answers, maxAttempts: maxAttempts, maxHedges: maxHedges)
            #expect(race.result != nil, "the call ends")
            #expect(race.sent.count <= maxAttempts)
            #expect(race.mostInFlight <= 1 + maxHedges)
            // Every attempt prepared hears exactly one outcome.
            #expect(race.reports.keys.sorted() == race.prepared.sorted())
            #expect(race.reports.values.allSatisfy { $0 == 1 })
            // Whatever the ending, no transfer is left running: each answered or was cancelled.
            #expect(race.outstanding.isEmpty)
            if case .success(let winner) = race.result {
                #expect(!race.cancelled.contains(winner.attempt))
            }
        }
    }

    @Test func aSlowFirstAttemptIsHedgedOnceAndTheFasterHedgeWins() {
        let race = Self.race(
            [Answer(kind: .success, after: 1_000), Answer(kind: .success, after: 20)], maxAttempts: 4, maxHedges: 1)
        #expect(race.sent == [1, 2])
        #expect(race.cancelled == [1])
        guard case .success(let winner) = race.result else {
            Issue.record("the call failed")
            return
        }
        #expect(winner.attempt == 2)
    }
}
