import ReboundMockBackend
import Testing

@Suite struct MockFailureSpellingTests {
    static let failures: [MockFailure] = [
        .temporary(status: 502),
        .temporary(status: 503, retryAfter: .seconds(2)),
        .temporary(status: 504, retryAfter: .date(secondsFromNow: 9)),
        .rateLimited(),
        .rateLimited(retryAfter: .seconds(1)),
        .rateLimited(retryAfter: .date(secondsFromNow: 60)),
        .tokenExpired,
        .captcha,
        .validation(field: "reward", reason: .valueOutOfBounds),
        .malformedJSON,
        .partlyMalformedJSON,
        .slow(milliseconds: 250),
        .stall,
        .closeMidBody,
        .oversizedBody(),
        .oversizedBody(bytes: 1024),
    ]

    @Test(arguments: failures)
    func everyFailureReadsBackFromItsSpelling(failure: MockFailure) {
        #expect(MockFailure(failure.description) == failure)
        #expect(failure.description.hasPrefix(failure.kind))
    }

    @Test(arguments: [
        ("temporary-503", MockFailure.temporary(status: 503)),
        ("retry-after-2", .temporary(status: 503, retryAfter: .seconds(2))),
        ("retry-after-date-5", .temporary(status: 503, retryAfter: .date(secondsFromNow: 5))),
        ("  stall ", .stall),
        ("slow", .slow(milliseconds: 1000)),
        ("validation", .validation(field: "answer", reason: .invalidFormat)),
        ("validation-title", .validation(field: "title", reason: .invalidFormat)),
        ("validation-answer-too_long", .validation(field: "answer", reason: .tooLong)),
        ("oversized-body", .oversizedBody(bytes: 64 * 1024 * 1024)),
    ])
    func shortSpellingsMeanTheDocumentedFailures(spelling: String, failure: MockFailure) {
        #expect(MockFailure(spelling) == failure)
    }

    @Test(arguments: [
        "", "none", "temporary", "temporary-404", "temporary-5030", "retry-after-", "retry-after-x", "slow--1",
        "validation-answer-too_wide", "validation-a-b-c", "STALL", "oversized-body-9999999999", "rate-limited-2",
    ])
    func otherSpellingsAreRejected(spelling: String) {
        #expect(MockFailure(spelling) == nil)
    }

    @Test func appliedFailuresAreTheOnesThatSpoilTheResponse() {
        let applied = Self.failures.filter(\.appliesRequest).map(\.kind)
        #expect(
            Set(applied) == ["slow", "malformed-json", "partly-malformed-json", "close-mid-body", "oversized-body"])
    }
}
