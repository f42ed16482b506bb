import Foundation
import Rebound
import Testing

/// Parsing `Retry-After`: delay-seconds, the three HTTP-date forms, and everything that must be rejected.
@Suite struct RetryAfterTests {
    /// Sun, 06 Nov 1994 08:49:37 GMT, the date of RFC 9110's examples.
    static let now = Date(timeIntervalSince1970: 784_111_777)

    @Test(arguments: [
        ("120", Duration.seconds(120)), ("0", .zero), ("007", .seconds(7)), ("  30\t", .seconds(30)),
        ("\t5 ", .seconds(5)), ("2147483647", .seconds(2_147_483_647)),
    ])
    func delaySecondsAreReadAsSeconds(value: String, expected: Duration) {
        #expect(RetryAfter.parse(value, now: Self.now) == expected)
    }

    @Test(arguments: ["2147483648", "2147483649", "99999999999999999999999999999999999999999"])
    func absurdDelaySecondsAreClampedToTheLongestDelay(value: String) {
        #expect(RetryAfter.parse(value, now: Self.now) == RetryAfter.longestDelay)
        #expect(RetryAfter.longestDelay == .seconds(2_147_483_648))
    }

    @Test(arguments: [
        "", "   ", "-5", "+5", "1.5", "1e3", "12abc", "abc", "1 2", "0x10", "٣", "５", "5s", "١٢٠",
    ])
    func invalidValuesAreRejected(value: String) {
        #expect(RetryAfter.parse(value, now: Self.now) == nil)
    }

    @Test(arguments: [
        ("Sun, 06 Nov 1994 08:50:37 GMT", Duration.seconds(60)),
        ("Sunday, 06-Nov-94 08:51:37 GMT", .seconds(120)),
        ("Sun Nov  6 08:52:37 1994", .seconds(180)),
        ("Wed Nov 16 08:49:37 1994", .seconds(10 * 86_400)),
        ("Thu, 01 Dec 1994 00:00:00 GMT", .seconds(2_128_223)),
        ("  Sun, 06 Nov 1994 08:50:37 GMT\t", .seconds(60)),
    ])
    func futureDatesInEachFormGiveTheTimeUntilThem(value: String, expected: Duration) {
        #expect(RetryAfter.parse(value, now: Self.now) == expected)
    }

    @Test(arguments: [
        "Sun, 06 Nov 1994 08:49:37 GMT", "Sun, 06 Nov 1994 08:49:36 GMT", "Thu, 01 Jan 1970 00:00:00 GMT",
        "Sunday, 06-Nov-94 08:00:00 GMT", "Sun Nov  6 08:49:00 1994", "Mon, 01 Jan 0001 00:00:00 GMT",
    ])
    func datesNotAfterNowGiveZero(value: String) {
        #expect(RetryAfter.parse(value, now: Self.now) == .zero)
    }

    @Test func theFractionOfNowIsSubtracted() {
        let now = Date(timeIntervalSince1970: 784_111_777.25)
        #expect(RetryAfter.parse("Sun, 06 Nov 1994 08:50:37 GMT", now: now) == .milliseconds(59_750))
    }

    @Test func aDateFarInTheFutureIsClampedToTheLongestDelay() {
        #expect(RetryAfter.parse("Fri, 31 Dec 9999 23:59:59 GMT", now: Self.now) == RetryAfter.longestDelay)
    }

    @Test(arguments: [
        ("Thu, 29 Feb 1996 00:00:00 GMT", true), ("Tue, 29 Feb 2000 00:00:00 GMT", true),
        ("Mon, 29 Feb 2100 00:00:00 GMT", false), ("Tue, 29 Feb 1995 00:00:00 GMT", false),
        ("Mon, 31 Apr 1995 00:00:00 GMT", false), ("Mon, 00 Jan 1995 00:00:00 GMT", false),
        ("Mon, 32 Jan 1995 00:00:00 GMT", false), ("Mon, 02 Jan 1995 24:00:00 GMT", false),
        ("Mon, 02 Jan 1995 23:60:00 GMT", false), ("Mon, 02 Jan 1995 23:59:61 GMT", false),
        ("Sat, 31 Dec 1994 23:59:60 GMT", true),
    ])
    func calendarAndClockFieldsAreValidated(value: String, isValid: Bool) {
        #expect((RetryAfter.parse(value, now: Self.now) != nil) == isValid)
    }

    @Test func aLeapSecondCountsAsTheNextMinutesFirst() {
        let leap = RetryAfter.parse("Sun, 06 Nov 1994 08:50:60 GMT", now: Self.now)
        let next = RetryAfter.parse("Sun, 06 Nov 1994 08:51:00 GMT", now: Self.now)
        #expect(leap == .seconds(83) && leap == next)
    }

    @Test(arguments: [
        "sun, 06 nov 1994 08:49:37 gmt",  // names are case-sensitive
        "Sun, 06 Nov 1994 08:49:37 UTC",  // only GMT
        "Sun, 06 Nov 1994 08:49:37",  // zone missing
        "Sun, 6 Nov 1994 08:49:37 GMT",  // day must have two digits
        "Sun,  06 Nov 1994 08:49:37 GMT",  // one space only
        "Sun 06 Nov 1994 08:49:37 GMT",  // comma missing
        "Sun, 06 Nov 94 08:49:37 GMT",  // IMF-fixdate needs four digits of year
        "Sun, 06 Nov 1994 8:49:37 GMT",  // two-digit hour
        "Sun, 06 Nov 1994 08:49 GMT",  // seconds missing
        "Sun, 06 Nov 1994 08:49:37 GMT junk",  // trailing garbage
        "Xyz, 06 Nov 1994 08:49:37 GMT",  // not a day name
        "Sun, 06 Foo 1994 08:49:37 GMT",  // not a month name
        "Sun, 06-Nov-94 08:49:37 GMT",  // RFC 850 needs the full day name
        "Sunday, 06-Nov-1994 08:49:37 GMT",  // and a two-digit year
        "Sun Nov 6 08:49:37 1994",  // asctime pads a one-digit day with a space
        "Sun Nov  6 08:49:37 1994 GMT",  // and has no zone
        "1994-11-06T08:49:37Z",  // ISO 8601 is not an HTTP-date
    ])
    func malformedDatesAreRejected(value: String) {
        #expect(RetryAfter.parse(value, now: Self.now) == nil)
    }

    /// RFC 9110: a two-digit year more than 50 years ahead means the most recent past year with those digits.
    @Test(arguments: [
        ("Wednesday, 01-Jan-70 00:00:00 GMT", Duration.seconds(16_436 * 86_400)),  // 2070
        ("Wednesday, 01-Jan-75 00:00:00 GMT", .seconds(18_262 * 86_400)),  // 2075: exactly 50 years ahead
        ("Wednesday, 01-Jan-75 00:00:01 GMT", .zero),  // a second more than 50 years ahead: 1975
        ("Wednesday, 01-Jan-76 00:00:00 GMT", .zero),  // 1976, not 2076
        ("Wednesday, 01-Jan-94 00:00:00 GMT", .zero),  // 1994
    ])
    func rfc850YearsArePlacedWithinFiftyYearsOfNow(value: String, expected: Duration) {
        let now = Date(timeIntervalSince1970: 1_735_689_600)  // 2025-01-01T00:00:00Z
        #expect(RetryAfter.parse(value, now: now) == expected)
    }

    @Test func anRFC850YearCanFallInTheNextCentury() {
        let now = Date(timeIntervalSince1970: 4_070_908_800)  // 2099-01-01T00:00:00Z
        #expect(RetryAfter.parse("Friday, 01-Jan-00 00:00:00 GMT", now: now) == .seconds(365 * 86_400))  // 2100
        #expect(RetryAfter.parse("Friday, 01-Jan-49 00:00:00 GMT", now: now) == .seconds(18_262 * 86_400))  // 2149
        #expect(RetryAfter.parse("Friday, 31-Dec-98 23:59:59 GMT", now: now) == .zero)  // 2098
    }

    /// Seconds since 1970 for `now`, passed as numbers because describing an infinite `Date`
    /// traps in Foundation.
    @Test(arguments: [
        Date.distantFuture.timeIntervalSince1970, Date.distantPast.timeIntervalSince1970, .infinity, -.infinity, .nan,
        .greatestFiniteMagnitude,
    ])
    func anExtremeNowNeverTraps(secondsSince1970: Double) {
        let now = Date(timeIntervalSince1970: secondsSince1970)
        #expect(RetryAfter.parse("120", now: now) == .seconds(120))
        for value in ["Sun, 06 Nov 1994 08:49:37 GMT", "Sunday, 06-Nov-94 08:49:37 GMT", "Sun Nov  6 08:49:37 1994"] {
            let delay = RetryAfter.parse(value, now: now)
            #expect(delay.map { $0 >= .zero && $0 <= RetryAfter.longestDelay } == true)
        }
    }
}
