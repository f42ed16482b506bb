import Rebound
import Testing

/// The raw values of every layer's codes: identities that reports are grouped by and people read
/// out to support, so these tables change only by appending.
@Suite struct LayerCodeTests {
    @Test func backendCodesKeepTheirNumbers() {
        let expected: [BackendErrorCode: Int] = [
            .unknown: 1,
            .unauthorized: 10, .tokenExpired: 11, .invalidCredentials: 12, .forbidden: 13, .accountBlocked: 14,
            .captchaRequired: 20, .captchaInvalid: 21,
            .validationFailure: 30, .notFound: 31, .conflict: 32, .duplicateRequest: 33, .preconditionFailed: 34,
            .unsupportedClientVersion: 35, .badRequest: 36,
            .rateLimited: 40, .temporarilyUnavailable: 41, .internalError: 42, .quotaExceeded: 43,
        ]
        #expect(Self.numbers(of: BackendErrorCode.self) == expected)
        #expect(BackendErrorCode.domain == "BackendError")
        #expect(BackendErrorCode.shortName == "BE")
    }

    @Test func validationCodesKeepTheirNumbers() {
        let expected: [ValidationErrorCode: Int] = [
            .valueOutOfBounds: 1, .missingValue: 2, .invalidFormat: 3, .tooLong: 4, .tooShort: 5, .notUnique: 6,
            .unknownField: 7, .invalidType: 8, .invalidChoice: 9,
        ]
        #expect(Self.numbers(of: ValidationErrorCode.self) == expected)
        #expect(ValidationErrorCode.domain == "ValidationError")
        #expect(ValidationErrorCode.shortName == "VA")
    }

    @Test func jsonCodesKeepTheirNumbers() {
        let expected: [JSONErrorCode: Int] = [
            .typeMismatch: 1, .valueNotFound: 2, .keyNotFound: 3, .dataCorrupted: 4, .notJSON: 5, .emptyBody: 6,
            .encodingFailed: 7, .tooDeeplyNested: 8,
        ]
        #expect(Self.numbers(of: JSONErrorCode.self) == expected)
        #expect(JSONErrorCode.domain == "JSONError")
        #expect(JSONErrorCode.shortName == "JS")
    }

    @Test func recoveryCodesKeepTheirNumbers() {
        let expected: [RecoveryErrorCode: Int] = [
            .retriesExhausted: 1, .deadlineExceeded: 2, .retryAfterBeyondDeadline: 3, .retryBudgetExhausted: 4,
            .notRetryable: 5,
            .refreshFailed: 10, .refreshRejected: 11, .tooManyRefreshes: 12, .noCredential: 13,
            .captchaCancelled: 20, .captchaFailed: 21, .captchaAttemptsExhausted: 22,
            .handlerFailed: 30,
            .cancelled: 40,
            .circuitOpen: 50, .circuitIsolated: 51, .concurrencyLimitReached: 52, .rateLimited: 53,
        ]
        #expect(Self.numbers(of: RecoveryErrorCode.self) == expected)
        #expect(RecoveryErrorCode.domain == "RecoveryError")
        #expect(RecoveryErrorCode.shortName == "RE")
    }

    @Test func httpLayerIsNamedAsInTheTalk() {
        #expect(HTTPStatusCode.domain == "HTTPError")
        #expect(HTTPStatusCode.shortName == "HT")
    }

    @Test func enumCodesAreNamedAfterTheirCases() {
        #expect(BackendErrorCode.validationFailure.name == "validationFailure")
        #expect(ValidationErrorCode.valueOutOfBounds.name == "valueOutOfBounds")
        #expect(JSONErrorCode.notJSON.name == "notJSON")
        #expect(RecoveryErrorCode.retryAfterBeyondDeadline.name == "retryAfterBeyondDeadline")
    }

    /// Every case and its number; a new case that is not in the expected table fails the comparison.
    private static func numbers<Code: ErrorCode & CaseIterable>(of type: Code.Type) -> [Code: Int] {
        Dictionary(uniqueKeysWithValues: Code.allCases.map { ($0, $0.rawValue) })
    }
}
