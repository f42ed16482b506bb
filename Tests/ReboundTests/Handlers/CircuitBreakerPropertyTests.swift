import Foundation
import HTTPTypes
import PropertyBased
import ReboundTesting
import Testing

@testable import Rebound

/// Property tests of the breaker's laws, under any interleaving of attempts that start, end in
/// any way and overlap, and of time that passes: it never lets an attempt through while open,
/// never has more than its probe count out while half-open, and never opens below its minimum.
///
/// The hooks are called as the pipeline calls them; an attempt is "sent" when `prepare` let it
/// through.
@Suite struct CircuitBreakerPropertyTests {
    static let configurations = zip(
        Gen.int(in: 1...20), Gen.int(in: 1...20), Gen.int(in: 0...1_000), Gen.int(in: 1...3)
    ).map { window, minimum, ratio, probes in
        CircuitBreakerHandler.Configuration(
            windowSize: window, minimumAttempts: minimum, failureRatio: Double(ratio) / 1_000, probeCount: probes)
    }

    /// Each event: `event % 6` says what happens (start, success, failure, 429, cancelled, time
    /// passes), `event / 6` which attempt or how much time.
    static let events = Gen.int(in: 0...600).array(of: 0...300)

    static let key = "api.example.com"

    /// The world around one breaker: a clock, the attempts it let through, and what it said.
    final class World: @unchecked Sendable {
        let clock = TestClock()
        let breaker: CircuitBreakerHandler
        let configuration: CircuitBreakerHandler.Configuration
        /// Attempts let through and not yet ended, oldest first.
        var inFlight: [AttemptContext] = []
        /// The probes let through in the current half-open period and not yet ended.
        var probesOut: Set<AttemptID> = []
        var calls: UInt64 = 0
        let transitions = Locked<Int>(0)

        init(_ configuration: CircuitBreakerHandler.Configuration, seed: UInt64) {
            self.configuration = configuration
            let transitions = transitions
            breaker = CircuitBreakerHandler(
                configuration: configuration, random: SeededRandom(seed: seed),
                onTransition: { _ in transitions.withLock { $0 += 1 } })
        }

        func start() {
            calls += 1
            let context = AttemptContext(
                id: AttemptID(call: calls, attempt: 1), maxAttempts: 1, deadline: .seconds(1_000_000), method: .get,
                path: "/tasks", time: clock.timeSource)
            let before = breaker.status(of: key)
            let changes = transitions.withLock { $0 }
            var request = HTTPRequest(method: .get, scheme: "https", authority: key, path: "/tasks")
            let sent = (try? breaker.prepareSynchronously(&request, context: context)) != nil
            if transitions.withLock({ $0 }) != changes { probesOut = [] }
            // Open and its break not over, or isolated: never sent.
            if before.state == .open, let opens = before.opensForProbeAt, clock.timeSource.now() < opens {
                #expect(!sent)
            }
            guard sent else { return }
            inFlight.append(context)
            if breaker.status(of: key).state == .halfOpen {
                probesOut.insert(context.id)
                #expect(probesOut.count <= configuration.probeCount)
            }
        }

        func end(_ index: Int, _ outcome: (AttemptContext) -> AttemptOutcome) {
            guard !inFlight.isEmpty else { return }
            let context = inFlight.remove(at: index % inFlight.count)
            let before = breaker.status(of: key)
            let changes = transitions.withLock { $0 }
            let ending = outcome(context)
            breaker.attemptDidEndSynchronously(ending, context: context)
            probesOut.remove(context.id)
            if transitions.withLock({ $0 }) != changes { probesOut = [] }
            let after = breaker.status(of: key)
            if before.state == .closed && after.state == .open {
                // Only a failure opens a closed circuit, and only with the minimum counted.
                #expect(ending.status.map { (500...504).contains($0) } == true)
                #expect(min(before.attempts + 1, configuration.windowSize) >= configuration.minimumAttempts)
            }
        }
    }

    static func failure(_ status: HTTPResponse.Status, _ context: AttemptContext) -> AttemptOutcome {
        let head = HTTPResponse(status: status)
        let failure = FailedAttempt(
            error: HTTPError(response: head),
            request: HTTPRequest(method: .get, scheme: "https", authority: key, path: "/tasks"), body: nil,
            response: TransportResponse(head: head), context: context, timeLeft: .seconds(1), history: [])
        let record = AttemptRecord(
            number: 1, status: status.code, chain: nil, delayBefore: .zero, duration: .zero)
        return .failed(failure, record: record)
    }

    static let success = AttemptOutcome.succeeded(
        request: HTTPRequest(method: .get, scheme: "https", authority: key, path: "/tasks"),
        response: TransportResponse(head: HTTPResponse(status: .ok)))

    @Test func theBreakerKeepsItsLawsUnderAnyInterleaving() async {
        await propertyCheck(count: 300, input: Self.configurations, Self.events, Gen.int(in: 0...1_000)) {
            configuration, events, seed in
            let world = World(configuration, seed: UInt64(seed))
            for event in events {
                let which = event / 6
                switch event % 6 {
                case 0: world.start()
                case 1: world.end(which) { _ in Self.success }
                case 2: world.end(which) { Self.failure(.serviceUnavailable, $0) }
                case 3: world.end(which) { Self.failure(.tooManyRequests, $0) }
                case 4: world.end(which) { _ in .cancelled }
                default: world.clock.advance(by: .milliseconds(which * 100))
                }
            }
        }
    }

    @Test func aCircuitThatOnlySeesFailuresOpensExactlyAtTheMinimum() async {
        await propertyCheck(input: Self.configurations) { configuration in
            let world = World(configuration, seed: 1)
            var opened: Int?
            for attempt in 1...configuration.windowSize {
                world.start()
                world.end(0) { Self.failure(.internalServerError, $0) }
                if opened == nil, world.breaker.status(of: Self.key).state == .open { opened = attempt }
            }
            #expect(opened == configuration.minimumAttempts)
        }
    }
}
