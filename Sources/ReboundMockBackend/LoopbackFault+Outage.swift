import NIOConcurrencyHelpers

extension LoopbackFault {
    /// A service that goes down for a while and comes back: from `start` after the fault's
    /// creation, for `duration`, every request it picks is answered `status` (503 by default),
    /// with `Retry-After: retryAfter` when one is given; before and after, the route answers.
    ///
    /// ```
    /// created ── start ──┬──── duration ────┬──► time (real)
    ///   route's replies  │ 503 to everything│ route's replies
    /// ```
    ///
    /// ``OutageCounts`` counts the requests that met the outage and those served, and when the
    /// first request after it was served: what a client's circuit breaker is measured by.
    /// ``LoopbackFaults/injected`` counts every request the rule selects under `outage`.
    ///
    /// - Parameters:
    ///   - start: How long after the fault's creation the outage begins (at once by default).
    ///   - duration: How long it lasts.
    ///   - status: The answer during the outage.
    ///   - retryAfter: The `Retry-After` of those answers, sent as given; none if `nil`.
    ///   - counts: Where the requests are counted.
    public static func outage(
        after start: Duration = .zero, lasting duration: Duration, status: Int = 503, retryAfter: String? = nil,
        counts: OutageCounts = OutageCounts()
    ) -> LoopbackFault {
        let begins = ContinuousClock.now + max(.zero, start)
        let ends = begins + max(.zero, duration)
        let headers = retryAfter.map { [("Retry-After", $0)] } ?? []
        return LoopbackFault("outage") { request, route in
            let now = ContinuousClock.now
            guard now < begins || now >= ends else {
                counts.recordOutageAnswer()
                return .respond(status: status, headers: headers)
            }
            counts.recordServed(sinceOutageEnded: now >= ends ? ends.duration(to: now) : nil)
            return await route(request)
        }
    }
}

/// What an ``LoopbackFault/outage(after:lasting:status:retryAfter:counts:)`` fault saw.
public final class OutageCounts: Sendable {
    private struct Counts {
        var outageAnswers = 0
        var served = 0
        var firstServedAfterOutage: Duration?
    }

    private let counts = NIOLockedValueBox(Counts())

    public init() {}

    /// The requests answered with the outage's status.
    public var outageAnswers: Int { counts.withLockedValue { $0.outageAnswers } }
    /// The requests the route answered, before or after the outage.
    public var served: Int { counts.withLockedValue { $0.served } }
    /// How long after the outage ended the first request was handed to the route; `nil` while
    /// none was.
    public var firstServedAfterOutage: Duration? { counts.withLockedValue { $0.firstServedAfterOutage } }

    func recordOutageAnswer() {
        counts.withLockedValue { $0.outageAnswers += 1 }
    }

    func recordServed(sinceOutageEnded elapsed: Duration?) {
        counts.withLockedValue { counts in
            counts.served += 1
            if let elapsed, counts.firstServedAfterOutage == nil { counts.firstServedAfterOutage = elapsed }
        }
    }
}
