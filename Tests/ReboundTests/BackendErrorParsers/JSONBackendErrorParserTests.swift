import Foundation
import HTTPTypes
import Testing

@testable import Rebound

@Suite struct JSONBackendErrorParserTests {
    private let parser = JSONBackendErrorParser()

    private func parse(
        _ json: String,
        status: HTTPResponse.Status = .badRequest,
        with parser: JSONBackendErrorParser = JSONBackendErrorParser()
    ) -> BackendError? {
        parser.backendError(from: HTTPResponse(status: status), body: Data(json.utf8))
    }

    // MARK: Good payloads

    @Test func theDocumentedPayloadBecomesAValidationFailureWithItsDetail() throws {
        let error = try #require(
            parse(
                #"{"code": "validation_failure", "reason": "value_out_of_bounds", "#
                    + #""message": "Price must be at most 100.", "field": "price"}"#
            )
        )
        #expect(error.code == .validationFailure)
        #expect(error.nested == NestedCode(ValidationErrorCode.valueOutOfBounds))
        #expect(error.reason == "Price must be at most 100.")
        #expect(error.field == "price")
        #expect(error.backendCode == "validation_failure")
        #expect(error.backendReason == "value_out_of_bounds")
        #expect((error.cause as? HTTPError)?.code == .no400BadRequest)
    }

    @Test func theErrorObjectMayBeUnderAnErrorKey() throws {
        let error = try #require(parse(#"{"error": {"code": "token_expired", "message": "Expired."}, "meta": 1}"#))
        #expect(error.code == .tokenExpired)
        #expect(error.reason == "Expired.")
    }

    @Test func anErrorKeyThatIsNotAnErrorObjectFallsBackToTheTopLevel() throws {
        let error = try #require(parse(#"{"error": {"hint": 1}, "code": "not_found"}"#))
        #expect(error.code == .notFound)
    }

    @Test func withoutAReasonTheFirstDetailGivesTheNestedCodeAndField() throws {
        let error = try #require(
            parse(
                #"{"code": "validation_failure", "details": [{"field": "title", "reason": "too_long"}, "#
                    + #"{"field": "price", "reason": "value_out_of_bounds"}]}"#
            )
        )
        #expect(error.nested == NestedCode(ValidationErrorCode.tooLong))
        #expect(error.field == "title")
        #expect(error.backendReason == "too_long")
    }

    @Test func aTopLevelReasonWinsOverTheDetails() throws {
        let error = try #require(
            parse(#"{"code": "validation_failure", "reason": "missing_value", "details": [{"reason": "too_long"}]}"#)
        )
        #expect(error.nested == NestedCode(ValidationErrorCode.missingValue))
    }

    @Test func codesAreFoundWhateverTheirCase() throws {
        #expect(parse(#"{"code": "RATE_LIMITED"}"#)?.code == .rateLimited)
        #expect(parse(#"{"code": "validation_failure", "reason": "TOO_SHORT"}"#)?.nested?.codeName == "tooShort")
    }

    @Test func numericCodesAreLookedUpAsTheirDecimalString() throws {
        let parser = JSONBackendErrorParser(codes: ["1042": .captchaRequired])
        let error = try #require(parse(#"{"code": 1042}"#, with: parser))
        #expect(error.code == .captchaRequired)
        #expect(error.backendCode == "1042")
    }

    @Test func customTablesReplaceTheDefaults() throws {
        let parser = JSONBackendErrorParser(codes: ["E_LIMIT": .quotaExceeded], reasons: ["R_BIG": .valueOutOfBounds])
        #expect(parse(#"{"code": "E_LIMIT", "reason": "R_BIG"}"#, with: parser)?.code == .quotaExceeded)
        #expect(parse(#"{"code": "E_LIMIT", "reason": "R_BIG"}"#, with: parser)?.nested?.code == 1)
        #expect(parse(#"{"code": "rate_limited"}"#, with: parser)?.code == .unknown)
    }

    // MARK: Unknown strings

    @Test func anUnknownCodeIsUnknownAndKeepsTheBackendsWords() throws {
        let error = try #require(parse(#"{"code": "galaxy_misaligned", "reason": "stars_wrong", "message": "Oops."}"#))
        #expect(error.code == .unknown)
        #expect(error.nested == nil)
        #expect(error.backendCode == "galaxy_misaligned")
        #expect(error.backendReason == "stars_wrong")
        #expect(error.chain.full == "BackendError.unknown - HTTPError.no400BadRequest")
    }

    @Test func theBackendsStringsAreBoundedInLength() throws {
        let long = String(repeating: "x", count: 5_000)
        let error = try #require(parse(#"{"code": "\#(long)", "message": "\#(long)"}"#))
        #expect(try #require(error.backendCode).count <= 201)
        #expect(try #require(error.reason).count <= 501)
    }

    // MARK: What is not a payload

    @Test(arguments: [
        "", "   ", "<html><body>502 Bad Gateway</body></html>", "null", "42", #""text""#, "[1, 2]",
        "{}", #"{"data": {"id": 3}}"#, #"{"code": 42.5}"#, #"{"code": null, "message": null}"#, "{\"code\": ",
        #"{"code": "not_found""#, "\u{FEFF}nope",
    ])
    func aBodyThatIsNotAnErrorPayloadGivesNil(body: String) {
        #expect(parse(body) == nil)
    }

    @Test func fieldsOfTheWrongTypeAreIgnoredAndTheRestIsKept() throws {
        let error = try #require(
            parse(#"{"code": ["validation_failure"], "reason": {"x": 1}, "message": "Bad.", "details": "oops"}"#)
        )
        #expect(error.code == .unknown)
        #expect(error.nested == nil)
        #expect(error.reason == "Bad.")
        #expect(error.backendCode == nil)
        let withOddDetails = try #require(parse(#"{"code": "validation_failure", "details": [1, "x"]}"#))
        #expect(withOddDetails.code == .validationFailure)
        #expect(withOddDetails.nested == nil)
    }

    @Test func aBodyOverTheLimitIsNotParsed() throws {
        let padding = String(repeating: "a", count: 1024 * 1024)
        let json = #"{"code": "validation_failure", "message": "\#(padding)"}"#
        #expect(parse(json) == nil)
        let generous = JSONBackendErrorParser(maximumBodySize: 2 * 1024 * 1024)
        let error = try #require(parse(json, with: generous))
        #expect(error.code == .validationFailure)
        #expect(try #require(error.reason).count <= 501)
    }

    @Test func tenThousandNestedArraysDoNotCrash() {
        let deep = String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000)
        #expect(parse(deep) == nil)
        #expect(parse(#"{"code": "not_found", "extra": \#(deep)}"#) == nil)
        #expect(parse(String(repeating: "{\"a\":", count: 10_000)) == nil)
    }

    @Test func bracketsInsideStringsDoNotCountAsNesting() throws {
        let brackets = String(repeating: "[{", count: 100)
        let error = try #require(parse(#"{"code": "not_found", "message": "\#(brackets) \"quoted\" \\"}"#))
        #expect(error.code == .notFound)
    }

    @Test func nestingUpToTheLimitIsAccepted() throws {
        // The body's own object is one level, so `limit - 1` arrays inside it reach the limit exactly.
        let limit = JSONBackendErrorParser.maximumNestingDepth
        let deepest = String(repeating: "[", count: limit - 1) + String(repeating: "]", count: limit - 1)
        #expect(parse(#"{"code": "not_found", "extra": \#(deepest)}"#)?.code == .notFound)
        let tooDeep = String(repeating: "[", count: limit) + String(repeating: "]", count: limit)
        #expect(parse(#"{"code": "not_found", "extra": \#(tooDeep)}"#) == nil)
    }

    // MARK: Captcha

    @Test func theCaptchaChallengeIsKeptForRecovery() throws {
        let error = try #require(
            parse(
                #"{"code": "captcha_required", "captcha": {"id": "c-81", "question": "What is 2 + 3?", "answer": "5"}}"#,
                status: .forbidden
            )
        )
        #expect(error.code == .captchaRequired)
        #expect(error.captchaChallenge == CaptchaChallenge(id: "c-81", question: "What is 2 + 3?"))
        #expect(error.context.redacted.map(\.key) == ["backendCode", "captchaId", "captchaQuestion"])
        #expect(!error.description.contains("answer"))
    }

    @Test func aSignedCaptchaAddressIsScreenedInTheErrorButKeptWholeForTheSolver() throws {
        let signature = "Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MGFiY2RlZg"
        let question = "https://captcha.example.com/c/81.png?sig=\(signature)"
        let error = try #require(
            parse(#"{"code": "captcha_required", "captcha": {"id": "c-81", "question": "\#(question)"}}"#))
        #expect(error.captchaChallenge == CaptchaChallenge(id: "c-81", question: question))
        #expect(error.context[BackendErrorContextKey.captchaQuestion]?.revealed.contains(signature) == false)
        for text in ["\(error)", error.chain.debugDescription] {
            #expect(!text.contains(signature), "\(text)")
            #expect(text.contains("captcha.example.com/c/81.png?sig=<redacted>"), "\(text)")
        }
    }

    @Test func aCaptchaBesideTheErrorObjectIsFoundToo() throws {
        let error = try #require(parse(#"{"error": {"code": "captcha_required"}, "captcha": {"id": 81}}"#))
        #expect(error.captchaChallenge == CaptchaChallenge(id: "81", question: nil))
    }

    @Test func aCaptchaWithoutAnIdentifierIsNoChallenge() throws {
        let error = try #require(parse(#"{"code": "captcha_required", "captcha": {"question": "2 + 3?"}}"#))
        #expect(error.captchaChallenge == nil)
        #expect(error.context["captchaQuestion"] == nil)
    }

    @Test func anOverlongCaptchaQuestionIsDroppedNotCut() throws {
        let question = String(repeating: "q", count: 5_000)
        let error = try #require(
            parse(#"{"code": "captcha_required", "captcha": {"id": "c", "question": "\#(question)"}}"#))
        #expect(error.captchaChallenge == CaptchaChallenge(id: "c", question: nil))
    }

    // MARK: Secrets

    @Test func nothingButTheDocumentedFieldsIsCopied() throws {
        let secret = "hunter2-SECRET"
        let error = try #require(
            parse(
                #"{"code": "invalid_credentials", "password": "\#(secret)", "token": "\#(secret)", "#
                    + #""request": {"headers": {"Authorization": "Bearer \#(secret)"}}, "#
                    + #""details": [{"field": "password", "reason": "too_short", "value": "\#(secret)"}]}"#
            )
        )
        let json = String(decoding: try JSONEncoder().encode(error.chain), as: UTF8.self)
        #expect(!json.contains(secret))
        #expect(!error.description.contains(secret))
        #expect(error.field == "password")
    }

    @Test func wordsThatLookLikeSecretsAreRedactedFromTheMessage() throws {
        let jwt = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJl"
        let key = "sk_live_4eC39HqLyjWDarjtT1zdp7dc"
        let error = try #require(
            parse(#"{"code": "unauthorized", "message": "Token \#(jwt) (key \#(key)) of ann@example.com expired."}"#)
        )
        #expect(error.reason == "Token <redacted> (key <redacted>) of <redacted> expired.")
    }

    @Test(arguments: [
        (
            #"Invalid body {\"token\":\"eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U\"}"#,
            #"Invalid body {"token":"<redacted>"}"#
        ),
        (
            "Bad callback https://api.example.com/cb?access_token=ya29a0AfH6SMBx3kQz9vLq8R7pN2cD4&x=1",
            "Bad callback https://api.example.com/cb?access_token=<redacted>&x=1"
        ),
        ("token:sk_live_4eC39HqLyjWDarjtT1zdp7dc", "token:<redacted>"),
        ("Bearer=eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJl;", "Bearer=<redacted>;"),
        ("Mail me at mailto:alice@example.com.", "Mail me at mailto:<redacted>."),
        ("Key wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY== rejected", "Key <redacted>== rejected"),
    ])
    func secretsInsideJSONURLsOrKeyValuePairsAreRedacted(message: String, expected: String) throws {
        let error = try #require(parse(#"{"code": "bad_request", "message": "\#(message)"}"#))
        #expect(error.reason == expected)
    }

    @Test func pathsHostsAndKeyValuePairsWithoutSecretsStayReadable() throws {
        let message = #"Bad field {\"user.name\":\"x\"} at https://api.example.com/v1/tasks?page=2&size=50, see docs."#
        let expected = #"Bad field {"user.name":"x"} at https://api.example.com/v1/tasks?page=2&size=50, see docs."#
        #expect(parse(#"{"code": "validation_failure", "message": "\#(message)"}"#)?.reason == expected)
    }

    @Test func ordinaryWordsAreNotMistakenForSecrets() throws {
        let message = "Price must be at most 100. See internationalization_requirements for 2024 rules."
        #expect(parse(#"{"code": "validation_failure", "message": "\#(message)"}"#)?.reason == message)
    }

    @Test func theProtocolAnswersWithTheBackendError() throws {
        let parser: any BackendErrorParser = JSONBackendErrorParser()
        let body = Data(#"{"code": "account_blocked"}"#.utf8)
        let error = try #require(parser.parse(HTTPResponse(status: .forbidden), body: body) as? BackendError)
        #expect(error.code == .accountBlocked)
        #expect(parser.parse(HTTPResponse(status: .forbidden), body: Data("<html/>".utf8)) == nil)
    }
}
