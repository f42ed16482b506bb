import Foundation
import HTTPTypes
import Rebound
import Testing

/// A captcha challenge comes from the server: the solver gets it as sent, and everything that
/// renders it (descriptions, dumps, an error's context, its chain) gets it screened like any
/// other server text.
@Suite struct CaptchaChallengeTests {
    /// A signed image address: its signature grants access to the image for a while.
    static let signature = "Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MGFiY2RlZg"
    static let question = "https://captcha.example.com/c/81.png?sig=\(signature)&exp=1700000000"
    /// An identifier in a token alphabet, which the screening cannot tell from a secret.
    static let id = "ch_4f9d2a7c1e8b3f6a0d5c9e2b7a1f4d8c"

    @Test func aChallengeRendersScreenedButKeepsItsValues() {
        let challenge = CaptchaChallenge(id: Self.id, question: Self.question)
        #expect(challenge.id == Self.id)
        #expect(challenge.question == Self.question)
        var dumped = ""
        dump(challenge, to: &dumped)
        for text in ["\(challenge)", String(reflecting: challenge), dumped] {
            #expect(!text.contains(Self.signature), "\(text)")
            #expect(!text.contains(Self.id), "\(text)")
            #expect(text.contains("captcha.example.com/c/81.png"), "\(text)")
            #expect(text.contains(ErrorContext.Value.redactionMarker), "\(text)")
        }
    }

    @Test func aChallengeSetOnABackendErrorIsScreenedInItsContextAndKeptForTheSolver() throws {
        var error = BackendError(.captchaRequired, cause: HTTPError(response: HTTPResponse(status: .forbidden)))
        error.captchaChallenge = CaptchaChallenge(id: Self.id, question: Self.question)

        #expect(error.captchaChallenge == CaptchaChallenge(id: Self.id, question: Self.question))
        let id = try #require(error.context[BackendErrorContextKey.captchaID])
        let question = try #require(error.context[BackendErrorContextKey.captchaQuestion])
        #expect(id.revealed == ErrorContext.Value.redactionMarker)
        #expect(question.revealed == "https://captcha.example.com/c/81.png?sig=<redacted>&exp=1700000000")

        error.captchaChallenge = nil
        #expect(error.captchaChallenge == nil)
        #expect(error.context[BackendErrorContextKey.captchaID] == nil)
        #expect(error.context[BackendErrorContextKey.captchaQuestion] == nil)
    }

    @Test func aChallengeWrittenIntoTheContextByHandIsStillFound() {
        var error = BackendError(.captchaRequired)
        error.context[BackendErrorContextKey.captchaID] = "c-7"
        error.context[BackendErrorContextKey.captchaQuestion] = "2 + 2?"
        #expect(error.captchaChallenge == CaptchaChallenge(id: "c-7", question: "2 + 2?"))
    }

    /// A question that is, or holds, a signed URL with short secrets, which look like nothing to
    /// the message heuristics: the URL rules apply to the URL inside the text.
    @Test(arguments: [
        "https://captcha.example.com/c-81.png?token=k7Qp2x&sig=9f8e7d6c5b4a&expires=1",
        "Type the letters in https://captcha.example.com/c-81.png?token=k7Qp2x&sig=9f8e7d6c5b4a&expires=1 please",
    ])
    func aURLInAQuestionLosesItsCredentialParameters(question: String) {
        var error = BackendError(.captchaRequired, cause: HTTPError(response: HTTPResponse(status: .forbidden)))
        error.captchaChallenge = CaptchaChallenge(id: "c-81", question: question)
        var dumped = ""
        dump(error, to: &dumped)
        for text in ["\(error.captchaChallenge!)", error.description, String(reflecting: ErrorChain(error)), dumped] {
            #expect(!text.contains("k7Qp2x"), "\(text)")
            #expect(!text.contains("9f8e7d6c5b4a"), "\(text)")
            #expect(text.contains("captcha.example.com/c-81.png?token=<redacted>&sig=<redacted>&expires=1"), "\(text)")
        }
        #expect(error.captchaChallenge?.question == question)
    }
}
