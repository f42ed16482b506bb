import Foundation
import HTTPTypes
import Rebound
import ReboundMarketplace
import ReboundMockBackend
import Testing

/// The mock backend's errors are what Rebound's parser reads without configuration.
@Suite struct MockErrorFormatTests {
    @Test(arguments: MockErrorCode.allCases)
    func everyCodeIsOneReboundKnows(code: MockErrorCode) {
        #expect(JSONBackendErrorParser.defaultCodes[code.rawValue] != nil)
    }

    @Test(arguments: MockErrorReason.allCases)
    func everyReasonIsOneReboundKnows(reason: MockErrorReason) {
        #expect(JSONBackendErrorParser.defaultReasons[reason.rawValue] != nil)
    }

    @Test func reboundReadsAValidationFailureWithItsReasonAndField() async throws {
        try await withBackend(.init(maxAnswerLength: 3)) { client in
            let token = try await client.accessToken()
            let reply = try await client.submit("too long", token: token)
            let error = try #require(
                JSONBackendErrorParser().backendError(
                    from: HTTPResponse(status: .init(code: reply.status)), body: reply.body)
            )
            #expect(error.code == .validationFailure)
            #expect(error.nested == NestedCode(ValidationErrorCode.tooLong))
            #expect(error.context[BackendErrorContextKey.field]?.revealed == "answer")
        }
    }

    @Test func reboundReadsTheCaptchaChallenge() async throws {
        try await withBackend { client in
            let token = try await client.accessToken()
            let reply = try await client.get("/v1/tasks", token: token, failure: "captcha")
            let error = try #require(
                JSONBackendErrorParser().backendError(from: HTTPResponse(status: .forbidden), body: reply.body)
            )
            #expect(error.code == .captchaRequired)
            let challenge = try #require(error.captchaChallenge)
            #expect(challenge.id.hasPrefix("c-"))
            #expect(challenge.question?.hasPrefix("What is ") == true)
        }
    }

    @Test(arguments: [
        ("token-expired", BackendErrorCode.tokenExpired),
        ("rate-limited", .rateLimited),
        ("temporary-503", .temporarilyUnavailable),
    ])
    func reboundReadsInjectedFailures(spelling: String, code: BackendErrorCode) async throws {
        try await withBackend { client in
            let reply = try await client.get("/v1/tasks", failure: spelling)
            let error = JSONBackendErrorParser().backendError(
                from: HTTPResponse(status: .init(code: reply.status)),
                body: reply.body
            )
            #expect(error?.code == code)
        }
    }

    @Test func everyStatusHasTheDefaultOfItsCode() {
        #expect(MockErrorCode.validationFailure.defaultStatus == 422)
        #expect(MockErrorCode.captchaRequired.defaultStatus == 403)
        #expect(MockErrorCode.rateLimited.defaultStatus == 429)
        #expect(MockErrorCode.tokenExpired.defaultStatus == 401)
    }
}
