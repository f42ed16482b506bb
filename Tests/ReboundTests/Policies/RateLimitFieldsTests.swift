import Foundation
import HTTPTypes
import Rebound
import Testing

/// Reading the rate-limit fields of a response: every form, and malformed values left out.
@Suite struct RateLimitFieldsTests {
    static let now = Date(timeIntervalSince1970: 1_700_000_000)

    static func read(_ pairs: [(String, String)]) -> RateLimitFields {
        var fields = HTTPFields()
        for (name, value) in pairs { fields.append(HTTPField(name: HTTPField.Name(name)!, value: value)) }
        return RateLimitFields(fields, now: now)
    }

    @Test func theDraftFieldGivesTheRemainingRequestsAndTheSecondsUntilMore() {
        let fields = Self.read([("RateLimit", #""default";r=50;t=30"#)])
        #expect(fields.remaining == 50)
        #expect(fields.reset == .seconds(30))
        #expect(fields.pause == nil)
    }

    @Test func ofSeveralPoliciesTheOneWithFewestRemainingCountsAndItsResetPausesWhenNoneRemain() {
        let fields = Self.read([("RateLimit", #""day";r=900;t=3600, "burst";r=0;t=2, "minute";r=0;t=40"#)])
        #expect(fields.remaining == 0)
        #expect(fields.reset == .seconds(40))
        #expect(fields.pause == .seconds(40))
    }

    @Test func policyNamesMayBeTokensAndTheResetMayBeMissing() {
        let fields = Self.read([("RateLimit", "burst;r=5")])
        #expect(fields.remaining == 5)
        #expect(fields.reset == nil)
    }

    @Test func theStrictestQuotaOfThePoliciesIsTheRatePerSecond() {
        let fields = Self.read([("RateLimit-Policy", #""burst";q=100;w=60, "daily";q=8640;w=86400"#)])
        #expect(fields.quotaPerSecond == 0.1)
    }

    @Test func quotasNotCountedInRequestsOrWithoutAWindowAreLeftOut() {
        let fields = Self.read([
            (
                "RateLimit-Policy",
                #""bytes";q=1000;w=1;qu="content-bytes", "nowindow";q=1, "req";q=10;w=2;qu="requests""#
            )
        ])
        #expect(fields.quotaPerSecond == 5)
    }

    @Test func theLinesOfARepeatedFieldAreOneList() {
        let fields = Self.read([("RateLimit", #""a";r=7;t=1"#), ("RateLimit", #""b";r=3;t=9"#)])
        #expect(fields.remaining == 3)
        #expect(fields.reset == .seconds(9))
    }

    @Test func xRateLimitResetIsADelayUpToTenToTheNinthAndADateAboveIt() {
        let delay = Self.read([("X-RateLimit-Remaining", "0"), ("X-RateLimit-Reset", "30")])
        #expect(delay.remaining == 0 && delay.reset == .seconds(30))
        let date = Self.read([("X-RateLimit-Remaining", " 4 "), ("X-RateLimit-Reset", "1700000045")])
        #expect(date.remaining == 4 && date.reset == .seconds(45))
        let past = Self.read([("X-RateLimit-Reset", "1699999000")])
        #expect(past.reset == .zero)
        let threshold = Self.read([("X-RateLimit-Reset", "1000000000")])
        #expect(threshold.reset == .seconds(1_000_000_000))
    }

    @Test func theDraftFieldWinsOverTheXFields() {
        let fields = Self.read([
            ("X-RateLimit-Remaining", "0"), ("X-RateLimit-Reset", "99"), ("RateLimit", #""default";r=12;t=3"#),
        ])
        #expect(fields.remaining == 12 && fields.reset == .seconds(3))
    }

    @Test func retryAfterWinsOverTheResetForThePause() {
        let fields = Self.read([("RateLimit", #""default";r=0;t=30"#), ("Retry-After", "5")])
        #expect(fields.retryAfter == .seconds(5))
        #expect(fields.pause == .seconds(5))
        let date = Self.read([("Retry-After", "Tue, 14 Nov 2023 22:13:30 GMT")])
        #expect(date.pause == .seconds(10))
    }

    @Test(arguments: [
        ("RateLimit", "limit=10, remaining=0, reset=5"),  // draft 07's dictionary
        ("RateLimit", #""default";r=-1;t=5"#),
        ("RateLimit", #""default";r=1.5;t=5"#),
        ("RateLimit", #""default";r="0";t=5"#),
        ("RateLimit", #""default";t=5"#),
        ("RateLimit", #"("a" "b");r=0;t=5"#),
        ("RateLimit", "\u{1}garbage;;;"),
        ("RateLimit", ""),
        ("RateLimit-Policy", #""p";q=10;w=0"#),
        ("RateLimit-Policy", #""p";q=-10;w=1"#),
        ("RateLimit-Policy", "q=10;w=="),
        ("X-RateLimit-Remaining", "-3"),
        ("X-RateLimit-Remaining", "1e3"),
        ("X-RateLimit-Reset", "soon"),
        ("X-RateLimit-Reset", "12.5"),
        ("Retry-After", "-1"),
    ])
    func aMalformedValueIsLeftOutAsIfAbsent(name: String, value: String) {
        #expect(Self.read([(name, value)]).isEmpty)
    }

    @Test func hugeValuesAreClampedToTheLongestDelay() {
        let draft = Self.read([("RateLimit", #""default";r=0;t=999999999999999"#)])
        #expect(draft.reset == RetryAfter.longestDelay)
        let digits = Self.read([
            ("X-RateLimit-Remaining", "0"), ("X-RateLimit-Reset", String(repeating: "9", count: 40)),
        ])
        #expect(digits.reset == RetryAfter.longestDelay)
        #expect(digits.pause == RetryAfter.longestDelay)
    }

    @Test func noFieldsSayNothing() {
        let fields = Self.read([("Content-Type", "application/json")])
        #expect(fields.isEmpty)
        #expect(fields.pause == nil)
    }
}
