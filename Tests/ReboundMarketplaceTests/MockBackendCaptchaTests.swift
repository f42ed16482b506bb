import Foundation
import HTTPTypes
import ReboundMarketplace
import ReboundMockBackend
import Testing

@Suite struct MockBackendCaptchaTests {
    /// The sum a captcha question asks for: "What is 3 + 4?" → 7.
    static func solve(_ question: String) throws -> Int {
        let numbers = question.split { !$0.isNumber }.compactMap { Int($0) }
        try #require(numbers.count == 2, "question: \(question)")
        return numbers[0] + numbers[1]
    }

    @Test func afterTheConfiguredNumberOfAnswersTheNextNeedsACaptcha() async throws {
        try await withBackend(.init(captchaAfter: 3)) { client in
            let token = try await client.accessToken()
            for task in 1...3 {
                #expect(try await client.submit("ok", to: task, token: token).status == 201)
            }
            let blocked = try await client.submit("ok", to: 4, token: token)
            #expect(blocked.status == 403)
            let error = try blocked.error()
            #expect(error.code == "captcha_required")
            let captcha = try #require(error.captcha)
            #expect(captcha.id.hasPrefix("c-"))
            #expect(captcha.question.hasPrefix("What is "))
            #expect(client.backend.stats.answersApplied == 3)
            #expect(client.backend.stats.captchasIssued == 1)

            // Until solved, the same challenge comes back.
            let again = try await client.submit("ok", to: 4, token: token)
            #expect(try again.error().captcha == captcha)
            #expect(client.backend.stats.captchasIssued == 1)
        }
    }

    @Test func solvingTheCaptchaLetsTheUserAnswerAgainAndResetsTheCount() async throws {
        try await withBackend(.init(captchaAfter: 2)) { client in
            let token = try await client.accessToken()
            for task in 1...2 { _ = try await client.submit("ok", to: task, token: token) }
            let captcha = try #require(try await client.submit("ok", to: 3, token: token).error().captcha)
            let answer = try Self.solve(captcha.question)
            let verified = try await client.send(
                .post,
                "/v1/captcha/verify",
                json: #"{"id":"\#(captcha.id)","answer":"\#(answer)"}"#,
                token: token
            )
            #expect(verified.status == 204)
            #expect(try await client.submit("ok", to: 3, token: token).status == 201)
            #expect(try await client.submit("ok", to: 4, token: token).status == 201)
            let next = try await client.submit("ok", to: 6, token: token)
            #expect(try next.error().code == "captcha_required")
            #expect(try next.error().captcha?.id != captcha.id)
            let stats = client.backend.stats
            #expect(stats.captchasIssued == 2)
            #expect(stats.captchasSolved == 1)
            #expect(stats.answersApplied == 4)
        }
    }

    @Test func aWrongAnswerIsCaptchaInvalidAndTheChallengeStaysOpen() async throws {
        try await withBackend(.init(captchaAfter: 1)) { client in
            let token = try await client.accessToken()
            _ = try await client.submit("ok", to: 1, token: token)
            let captcha = try #require(try await client.submit("ok", to: 2, token: token).error().captcha)
            let wrong = try await client.send(
                .post,
                "/v1/captcha/verify",
                json: #"{"id":"\#(captcha.id)","answer":"\#(try Self.solve(captcha.question) + 1)"}"#,
                token: token
            )
            #expect(wrong.status == 400)
            #expect(try wrong.error().code == "captcha_invalid")
            let unknown = try await client.send(
                .post,
                "/v1/captcha/verify",
                json: #"{"id":"c-999","answer":"1"}"#,
                token: token
            )
            #expect(try unknown.error().code == "captcha_invalid")
            // A numeric answer is accepted as well as a string.
            let right = try await client.send(
                .post,
                "/v1/captcha/verify",
                json: #"{"id":"\#(captcha.id)","answer":\#(try Self.solve(captcha.question))}"#,
                token: token
            )
            #expect(right.status == 204)
            #expect(client.backend.stats.captchasSolved == 1)
        }
    }

    @Test func theCountIsPerUser() async throws {
        try await withBackend(.init(captchaAfter: 1)) { client in
            let alice = try await client.accessToken()
            let bob = try await client.accessToken("bob", "builder")
            _ = try await client.submit("ok", to: 1, token: alice)
            #expect(try await client.submit("ok", to: 2, token: alice).status == 403)
            #expect(try await client.submit("ok", to: 2, token: bob).status == 201)
            let captcha = try #require(try await client.submit("ok", to: 3, token: alice).error().captcha)
            // Bob cannot solve Alice's challenge.
            let fromBob = try await client.send(
                .post,
                "/v1/captcha/verify",
                json: #"{"id":"\#(captcha.id)","answer":"\#(try Self.solve(captcha.question))"}"#,
                token: bob
            )
            #expect(try fromBob.error().code == "captcha_invalid")
        }
    }

    @Test func zeroTurnsCaptchasOff() async throws {
        try await withBackend(.init(captchaAfter: 0)) { client in
            let token = try await client.accessToken()
            for task in [1, 2, 3, 4, 6, 7, 1, 2] {
                #expect(try await client.submit("ok", to: task, token: token).status == 201)
            }
            #expect(client.backend.stats.captchasIssued == 0)
        }
    }

    @Test func questionsAreArithmeticFixedByTheSeed() async throws {
        func questions(seed: UInt64) async throws -> [String] {
            try await withBackend(.init(seed: seed)) { client in
                let token = try await client.accessToken()
                var questions: [String] = []
                for _ in 0..<4 {
                    let reply = try await client.get("/v1/tasks", token: token, failure: "captcha")
                    let captcha = try #require(try reply.error().captcha)
                    _ = try Self.solve(captcha.question)
                    questions.append(captcha.question)
                    let answer = try Self.solve(captcha.question)
                    _ = try await client.send(
                        .post,
                        "/v1/captcha/verify",
                        json: #"{"id":"\#(captcha.id)","answer":"\#(answer)"}"#,
                        token: token
                    )
                }
                return questions
            }
        }
        let first = try await questions(seed: 11)
        #expect(try await questions(seed: 11) == first)
        #expect(try await questions(seed: 12) != first)
    }

    @Test func aVerificationWithoutAnIDIsAMissingValue() async throws {
        try await withBackend { client in
            let token = try await client.accessToken()
            let reply = try await client.send(.post, "/v1/captcha/verify", json: #"{"answer":"7"}"#, token: token)
            #expect(reply.status == 422)
            #expect(try reply.error().field == "id")
            #expect(try reply.error().reason == "missing_value")
        }
    }
}
