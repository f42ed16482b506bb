import Foundation
import PropertyBased
import Rebound
import Testing

/// Property tests: any HTTP-date a conforming server could send parses to the exact time until it,
/// and the policy honours, caps or refuses exactly as documented.
@Suite struct RetryAfterPropertyTests {
    static let milliseconds = Gen.int64(in: 0...120_000).map { Duration.milliseconds($0) }

    /// An independent oracle: Foundation's formatter with the fixed POSIX locale and GMT.
    static func format(_ date: Date, _ pattern: String) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = pattern
        return formatter.string(from: date)
    }

    /// C's asctime form, which pads a one-digit day of the month with a space (no formatter pattern does).
    static func asctime(_ date: Date) -> String {
        let day = format(date, "d")
        let paddedDay = day.count == 1 ? " " + day : day
        return "\(format(date, "EEE MMM")) \(paddedDay) \(format(date, "HH:mm:ss yyyy"))"
    }

    @Test func anyDelaySecondsValueParsesToItself() async {
        await propertyCheck(input: Gen.int64(in: 0...2_147_483_648)) { seconds in
            #expect(RetryAfter.parse(String(seconds), now: Date()) == .seconds(seconds))
        }
    }

    @Test func anyIMFFixdateOrAsctimeDateParsesToTheSecondsUntilIt() async {
        // now and the date both between 1970 and 2100, so some dates are beyond the longest delay.
        await propertyCheck(
            count: 300, input: Gen.int64(in: 0...4_102_444_800), Gen.int64(in: 0...4_102_444_800), Gen.bool
        ) { nowSeconds, dateSeconds, useAsctime in
            let date = Date(timeIntervalSince1970: TimeInterval(dateSeconds))
            let value =
                useAsctime
                ? Self.asctime(date)
                : Self.format(date, "EEE, dd MMM yyyy HH:mm:ss 'GMT'")
            let parsed = RetryAfter.parse(value, now: Date(timeIntervalSince1970: TimeInterval(nowSeconds)))
            #expect(parsed == .seconds(min(max(0, dateSeconds - nowSeconds), 2_147_483_648)), "\(value)")
        }
    }

    @Test func anyRFC850DateWithinFiftyYearsOfNowParsesToTheSecondsUntilIt() async {
        await propertyCheck(
            count: 300, input: Gen.int64(in: 1_600_000_000...3_000_000_000),
            Gen.int64(in: -1_500_000_000...1_500_000_000)
        ) { nowSeconds, offset in
            let date = Date(timeIntervalSince1970: TimeInterval(nowSeconds + offset))
            let value = Self.format(date, "EEEE, dd-MMM-yy HH:mm:ss 'GMT'")
            let parsed = RetryAfter.parse(value, now: Date(timeIntervalSince1970: TimeInterval(nowSeconds)))
            #expect(parsed == .seconds(max(0, offset)), "\(value)")
        }
    }

    @Test func aRequestWithinTheLimitsIsHonouredExactly() async {
        await propertyCheck(input: Self.milliseconds, Self.milliseconds, Self.milliseconds.optional) {
            requested, maximumSlack, timeSlack in
            let maximum = requested + maximumSlack
            let timeLeft = timeSlack.map { requested + $0 }
            #expect(
                RetryAfterPolicy(maximum: maximum).wait(requested: requested, timeLeft: timeLeft) == .wait(requested))
        }
    }

    @Test func aRequestAboveTheMaximumIsCappedWhenTheDeadlineAllows() async {
        await propertyCheck(input: Self.milliseconds, Self.milliseconds, Self.milliseconds.optional) {
            maximum, excess, timeSlack in
            let requested = maximum + excess + .nanoseconds(1)
            let timeLeft = timeSlack.map { maximum + $0 }
            #expect(RetryAfterPolicy(maximum: maximum).wait(requested: requested, timeLeft: timeLeft) == .wait(maximum))
        }
    }

    @Test func aCappedWaitLongerThanTheTimeLeftExceedsTheDeadline() async {
        await propertyCheck(input: Self.milliseconds, Self.milliseconds, Self.milliseconds) {
            requested, maximum, timeLeft in
            let decision = RetryAfterPolicy(maximum: maximum).wait(requested: requested, timeLeft: timeLeft)
            if min(requested, maximum) > timeLeft {
                #expect(decision == .exceedsDeadline(requested: requested, timeLeft: timeLeft))
            } else {
                #expect(decision == .wait(min(requested, maximum)))
            }
        }
    }

    @Test func theWaitNeverExceedsTheMaximumNorTheTimeLeft() async {
        await propertyCheck(input: Self.milliseconds, Self.milliseconds, Self.milliseconds.optional) {
            requested, maximum, timeLeft in
            if case .wait(let wait) = RetryAfterPolicy(maximum: maximum).wait(requested: requested, timeLeft: timeLeft)
            {
                #expect(wait <= maximum && wait <= requested && wait <= timeLeft ?? wait)
            }
        }
    }
}
