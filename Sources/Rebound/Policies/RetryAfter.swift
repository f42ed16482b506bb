#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// Reading the HTTP `Retry-After` header (RFC 9110, section 10.2.3) as a wait.
///
/// A server sends `Retry-After` with a 503 (Service Unavailable) or 429 (Too Many Requests) to say
/// when to come back, either as a number of seconds or as a date:
///
/// ```
/// Retry-After: 120
/// Retry-After: Fri, 31 Dec 1999 23:59:59 GMT
/// ```
///
/// ``parse(_:now:)`` turns either form into a duration from `now`; ``RetryAfterPolicy`` then
/// decides whether to honour it. Parsing is by hand over the UTF-8 bytes, not through a
/// `DateFormatter`: the grammar is fixed and tiny, and a formatter depends on locale and time-zone
/// settings that are easy to get wrong, and is slow to create.
public enum RetryAfter {
    /// The longest delay ``parse(_:now:)`` returns: 2^31 seconds, about 68 years.
    ///
    /// Larger values, from an absurd number of seconds or a date far in the future, are clamped to
    /// it rather than rejected. A server asking for that long clearly means "not soon", and treating
    /// its answer as missing would make the client retry sooner than asked, the opposite of what
    /// the server wanted. 2^31 is the value HTTP caches use for "infinity" when a delta-seconds is
    /// too large for them (RFC 9111, section 1.2.2), and it keeps all arithmetic far from overflow.
    /// ``RetryAfterPolicy`` caps the wait at a far smaller maximum anyway.
    public static let longestDelay: Duration = .seconds(2_147_483_648)

    /// Parses a `Retry-After` value into the wait it asks for, measured from `now`.
    ///
    /// Accepted forms (surrounding spaces, tabs, CRs and LFs are ignored):
    /// - **delay-seconds**: one or more ASCII digits, such as `120`. Signs, fractions, units and
    ///   other characters make the value invalid.
    /// - **IMF-fixdate**, the form servers must send: `Sun, 06 Nov 1994 08:49:37 GMT`.
    /// - The two obsolete forms RFC 9110 (section 5.6.7) requires recipients to accept:
    ///   RFC 850, `Sunday, 06-Nov-94 08:49:37 GMT`, and C's asctime, `Sun Nov  6 08:49:37 1994`.
    ///   A two-digit RFC 850 year is read as the latest year with those digits that puts the date
    ///   no more than 50 years after `now`, as the RFC requires.
    ///
    /// Dates follow the grammar exactly: names are case-sensitive, the day of the week must be a
    /// valid name (but is not checked against the date), the day must exist in its month, and the
    /// time must be valid (a leap second, `:60`, is allowed).
    ///
    /// - Parameters:
    ///   - value: The field value.
    ///   - now: The current time, for dates; injected so parsing stays a pure function.
    /// - Returns: The wait, `.zero` for a date not after `now`, clamped to ``longestDelay``; or
    ///   `nil` when `value` is not a valid `Retry-After`.
    public static func parse(_ value: String, now: Date) -> Duration? {
        let bytes = trimmed(Array(value.utf8))
        guard !bytes.isEmpty else { return nil }
        if bytes.allSatisfy(isDigit) {
            return delaySeconds(bytes)
        }
        guard let date = HTTPDate(bytes, now: Int64(clampedSeconds(of: now).rounded(.down))) else { return nil }
        return delay(until: date.secondsSince1970, from: now)
    }

    private static let longestDelaySeconds: Int64 = 2_147_483_648

    private static func isDigit(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
    }

    private static func trimmed(_ bytes: [UInt8]) -> ArraySlice<UInt8> {
        let isSpace = { (byte: UInt8) in
            byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") || byte == UInt8(ascii: "\r")
                || byte == UInt8(ascii: "\n")
        }
        guard let first = bytes.firstIndex(where: { !isSpace($0) }),
            let last = bytes.lastIndex(where: { !isSpace($0) })
        else { return [] }
        return bytes[first...last]
    }

    private static func delaySeconds(_ digits: ArraySlice<UInt8>) -> Duration {
        var seconds: Int64 = 0
        for digit in digits where seconds <= longestDelaySeconds {
            seconds = seconds * 10 + Int64(digit - UInt8(ascii: "0"))
        }
        return .seconds(min(seconds, longestDelaySeconds))
    }

    /// `now` in seconds since 1970, kept within about ±300,000 years so integer conversions
    /// cannot trap on a `Date` as odd as `distantFuture` or an infinite interval.
    private static func clampedSeconds(of now: Date) -> Double {
        let limit = 1e13
        let seconds = now.timeIntervalSince1970
        guard !seconds.isNaN else { return 0 }
        return min(max(seconds, -limit), limit)
    }

    private static func delay(until target: Int64, from now: Date) -> Duration {
        let nowSeconds = clampedSeconds(of: now)
        let whole = nowSeconds.rounded(.down)
        let fraction = nowSeconds - whole
        let wholeDifference = target - Int64(whole)
        guard wholeDifference > 0 else { return .zero }
        guard wholeDifference <= longestDelaySeconds else { return longestDelay }
        // Whole seconds stay exact; only `now`'s fraction goes through Double.
        return .seconds(wholeDifference) - .seconds(fraction)
    }
}
