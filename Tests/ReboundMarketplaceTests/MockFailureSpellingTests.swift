import ReboundMarketplace
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

    /// Numbers at the edges of every range a spelling could be tempted to limit them to.
    static let numbers = [
        Int.min, -1_000_000_000, -503, -1, 0, 1, 7, 429, 503, 999, 1000, 999_999_999, 1_000_000_000, Int.max,
    ]

    /// Field names with what a spelling could trip on: dashes, reasons, spaces, nothing at all.
    static let fields = [
        "answer", "reward", "answer-text", "a--b", "-", "", "too_long", "x-too_long", " spaced out ", "ünïcödé",
        "validation", "tab\there",
    ]

    /// Every failure the Swift API accepts, by kind, with the values above in each parameter.
    ///
    /// The switch has no `default`, so a new kind of failure does not compile until it has examples here.
    static func examples(like failure: MockFailure) -> [MockFailure] {
        let retryAfters: [MockFailure.RetryAfter?] =
            [nil] + numbers.map { .seconds($0) } + numbers.map { .date(secondsFromNow: $0) }
        switch failure {
        case .temporary:
            return numbers.map { .temporary(status: $0) } + retryAfters.map { .temporary(status: 503, retryAfter: $0) }
                + [
                    .temporary(status: -1, retryAfter: .seconds(-1)),
                    .temporary(status: Int.min, retryAfter: .date(secondsFromNow: Int.min)),
                ]
        case .rateLimited:
            return retryAfters.map { .rateLimited(retryAfter: $0) }
        case .validation:
            return fields.flatMap { field in MockErrorReason.allCases.map { .validation(field: field, reason: $0) } }
        case .slow:
            return numbers.map { .slow(milliseconds: $0) }
        case .oversizedBody:
            return numbers.map { .oversizedBody(bytes: $0) }
        case .tokenExpired, .captcha, .malformedJSON, .partlyMalformedJSON, .stall, .closeMidBody:
            return [failure]
        }
    }

    /// One failure of each kind.
    static let oneOfEachKind: [MockFailure] = [
        .temporary(), .rateLimited(), .tokenExpired, .captcha, .validation(field: "answer", reason: .tooLong),
        .malformedJSON, .partlyMalformedJSON, .slow(milliseconds: 1), .stall, .closeMidBody, .oversizedBody(),
    ]

    static let everyFailure = oneOfEachKind.flatMap(examples(like:))

    @Test func theExamplesCoverEveryKind() {
        #expect(Set(Self.oneOfEachKind.map(\.kind)).count == Self.oneOfEachKind.count)
        #expect(Set(Self.everyFailure.map(\.kind)) == Set(Self.oneOfEachKind.map(\.kind)))
    }

    @Test func everyFailureTheAPIAcceptsReadsBackFromItsSpelling() {
        for failure in Self.everyFailure {
            #expect(MockFailure(failure.description) == failure, "\(failure.description)")
        }
    }

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
        // Any number, as the Swift API takes any Int.
        ("temporary-404", .temporary(status: 404)),
        ("slow--1", .slow(milliseconds: -1)),
        ("slow-007", .slow(milliseconds: 7)),
        ("retry-after-date--60", .temporary(status: 503, retryAfter: .date(secondsFromNow: -60))),
        ("oversized-body-9999999999", .oversizedBody(bytes: 9_999_999_999)),
        // With a reason, the field is everything before the last dash.
        ("validation-answer-text-too_long", .validation(field: "answer-text", reason: .tooLong)),
        ("validation--missing_value", .validation(field: "", reason: .missingValue)),
    ])
    func shortSpellingsMeanTheDocumentedFailures(spelling: String, failure: MockFailure) {
        #expect(MockFailure(spelling) == failure)
    }

    @Test(arguments: [
        "", "none", "temporary", "temporary-", "temporary--", "temporary-x", "temporary-503-", "temporary-503x",
        "retry-after-", "retry-after-x", "retry-after--", "slow-", "slow-+5", "slow-1e3", "slow-99999999999999999999",
        "validation-", "validation-answer-too_wide", "validation-a-b-c", "validation-answer-text", "STALL",
        "rate-limited-2",
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
