import Foundation
import HTTPTypes
import PropertyBased
import ReboundTesting
import Testing

@testable import Rebound

/// Property tests of the limiter's laws, under any sequence of attempts, answers (successes,
/// throttles with and without a pause, fields that state a quota or say nothing remains) and
/// time: once limiting, it never sends more than `capacity + rate × w` in any window of `w`
/// seconds, for the largest capacity and rate it had; an attempt it refuses would have waited
/// past its deadline, and one it lets through never waited past it.
///
/// The hooks are called as the pipeline calls them, on a test clock whose sleeps move it: an
/// attempt is "sent" when `prepare` returns.
@Suite struct AdaptiveRateLimitPropertyTests {
    /// Each event: `event % 6` says what happens (an attempt, a success, a throttle, a throttle
    /// with `Retry-After`, a success stating a quota or nothing remaining, time passes),
    /// `event / 6` which attempt, how much time or what the fields say.
    static let events = Gen.int(in: 0...600).array(of: 1...300)
    static let deadlines = Gen.int(in: 1...20)

    static let host = "api.example.com"

    final class World: @unchecked Sendable {
        let clock = TestClock()
        let limiter = AdaptiveRateLimitHandler()
        let deadline: Duration
        var inFlight: [(HTTPRequest, AttemptContext)] = []
        /// When each attempt sent while limiting went.
        var sent: [Double] = []
        var largestCapacity = 1.0
        var largestRate = 0.0
        var calls: UInt64 = 0

        init(deadline: Duration) {
            self.deadline = deadline
        }

        var now: Double { clock.now.offset.secondsValue }

        func attempt() async {
            calls += 1
            let start = clock.now.offset
            let context = AttemptContext(
                id: AttemptID(call: calls, attempt: 1), maxAttempts: 1, deadline: start + deadline, method: .get,
                path: "/tasks", time: clock.timeSource)
            var request = HTTPRequest(
                method: .get, scheme: "https", authority: AdaptiveRateLimitPropertyTests.host, path: "/tasks")
            let limiting = limiter.status(of: AdaptiveRateLimitPropertyTests.host).isLimiting
            do {
                try await limiter.prepare(&request, context: context)
            } catch {
                let wait = (error as? RecoveryError)?.attachment(RateLimitWait.self)?.retryAfter
                #expect(wait.map { $0 > deadline } == true)
                // Refused at once, without waiting.
                #expect(clock.now.offset == start)
                return
            }
            // Within the microsecond of grace that the rounding of each nap may add up to.
            #expect(clock.now.offset - start <= deadline + .microseconds(1))
            if limiting { sent.append(now) }
            inFlight.append((request, context))
        }

        func answer(_ index: Int, _ status: HTTPResponse.Status, _ fields: [(String, String)] = []) {
            guard !inFlight.isEmpty else { return }
            let (request, context) = inFlight.remove(at: index % inFlight.count)
            var headers = HTTPFields()
            for (name, value) in fields { headers.append(HTTPField(name: HTTPField.Name(name)!, value: value)) }
            let head = HTTPResponse(status: status, headerFields: headers)
            let outcome: AttemptOutcome
            if status == .ok {
                outcome = .succeeded(request: request, response: TransportResponse(head: head))
            } else {
                let failure = FailedAttempt(
                    error: HTTPError(response: head), request: request, body: nil,
                    response: TransportResponse(head: head), context: context, timeLeft: .seconds(1), history: [])
                outcome = .failed(
                    failure,
                    record: AttemptRecord(
                        number: 1, status: status.code, chain: nil, delayBefore: .zero, duration: .zero))
            }
            limiter.attemptDidEndSynchronously(outcome, context: context)
            let status = limiter.status(of: AdaptiveRateLimitPropertyTests.host)
            largestCapacity = max(largestCapacity, status.capacity)
            largestRate = max(largestRate, status.rate)
            #expect(status.tokens <= status.capacity + 1e-9)
        }

        /// The law, over windows starting at each send.
        func checkWindows() {
            for window in [0.1, 0.5, 1.0, 5.0] {
                // A token is taken a millionth short: a thousandth's slack covers a window's.
                let bound = largestCapacity + largestRate * window + 1e-3
                for (index, start) in sent.enumerated() {
                    let count = sent[index...].prefix { $0 <= start + window }.count
                    #expect(Double(count) <= bound, "\(count) sent in \(window) s from \(start) s, bound \(bound)")
                }
            }
        }
    }

    @Test func theLimiterNeverSendsMoreThanCapacityPlusRateTimesTheWindow() async {
        await propertyCheck(count: 200, input: Self.events, Self.deadlines) { events, deadline in
            let world = World(deadline: .seconds(deadline))
            for event in events {
                let which = event / 6
                switch event % 6 {
                case 0: await world.attempt()
                case 1: world.answer(which, .ok)
                case 2: world.answer(which, .tooManyRequests)
                case 3: world.answer(which, .tooManyRequests, [("Retry-After", "\(which % 5)")])
                case 4:
                    world.answer(
                        which, .ok,
                        which.isMultiple(of: 2)
                            ? [("RateLimit-Policy", #""p";q=\#(which % 50 + 1);w=\#(which % 3 + 1)"#)]
                            : [("RateLimit", #""p";r=\#(which % 3);t=\#(which % 4)"#)])
                default: world.clock.advance(by: .milliseconds(which * 20))
                }
            }
            world.checkWindows()
        }
    }
}

extension Duration {
    fileprivate var secondsValue: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}
