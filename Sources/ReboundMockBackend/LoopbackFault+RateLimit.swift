import NIOConcurrencyHelpers

extension LoopbackFault {
    /// A server that accepts `perSecond` requests in each second and answers the others `429 Too
    /// Many Requests`, telling its clients so with the IETF draft's fields (draft 08 and later):
    ///
    /// ```
    /// RateLimit-Policy: "default";q=100;w=1
    /// RateLimit: "default";r=37;t=1
    /// ```
    ///
    /// Seconds are fixed windows of real time from the fault's creation, as most API gateways
    /// count. An accepted request gets the route's reply with both fields added (`r` what is left
    /// of the second after it); a refused one a 429 with `r=0` and `t` the whole seconds until
    /// the next window, and `Retry-After: t` as well when `retryAfter` is on. Only a route's
    /// ``LoopbackReply/respond(status:headers:body:)`` gets the fields; any other reply is sent as
    /// it is. ``LoopbackFaults/injected`` counts every request the rule selects under
    /// `rate-limit`; ``RateLimitCounts`` counts the accepted and the refused.
    ///
    /// - Parameters:
    ///   - perSecond: The requests accepted in each second (at least 0).
    ///   - retryAfter: Whether a 429 also carries `Retry-After`.
    ///   - rateLimitFields: Whether answers carry the `RateLimit` fields; without them a 429 says
    ///     nothing but its status (unless `retryAfter`).
    ///   - counts: Where the accepted and refused requests are counted.
    public static func rateLimited(
        perSecond: Int, retryAfter: Bool = false, rateLimitFields: Bool = true,
        counts: RateLimitCounts = RateLimitCounts()
    ) -> LoopbackFault {
        let quota = max(0, perSecond)
        let origin = ContinuousClock.now
        let window = NIOLockedValueBox((second: Int64(0), used: 0))
        let policy = ("RateLimit-Policy", "\"default\";q=\(quota);w=1")
        return LoopbackFault("rate-limit") { request, route in
            let elapsed = origin.duration(to: .now).components
            let remaining = window.withLockedValue { window -> Int? in
                if elapsed.seconds != window.second { window = (elapsed.seconds, 0) }
                guard window.used < quota else { return nil }
                window.used += 1
                return quota - window.used
            }
            guard let remaining else {
                counts.record(accepted: false)
                // The rest of this second, in whole seconds as the field has them: always 1.
                var headers = rateLimitFields ? [policy, ("RateLimit", "\"default\";r=0;t=1")] : []
                if retryAfter { headers.append(("Retry-After", "1")) }
                return .respond(status: 429, headers: headers)
            }
            counts.record(accepted: true)
            let reply = await route(request)
            guard rateLimitFields, case .respond(let status, let headers, let body) = reply else { return reply }
            let fields = [policy, ("RateLimit", "\"default\";r=\(remaining);t=1")]
            return .respond(status: status, headers: headers + fields, body: body)
        }
    }
}

/// How many requests a ``LoopbackFault/rateLimited(perSecond:retryAfter:rateLimitFields:counts:)`` fault accepted
/// and refused.
public final class RateLimitCounts: Sendable {
    private let counts = NIOLockedValueBox((accepted: 0, refused: 0))

    public init() {}

    /// The requests accepted.
    public var accepted: Int { counts.withLockedValue { $0.accepted } }
    /// The requests answered 429.
    public var refused: Int { counts.withLockedValue { $0.refused } }

    func record(accepted: Bool) {
        counts.withLockedValue { counts in
            if accepted { counts.accepted += 1 } else { counts.refused += 1 }
        }
    }
}
