import Foundation
import HTTPTypes
import Rebound
import ReboundMarketplace
import ReboundMockBackend
import TestSupport
import Testing

/// Each failure kind, injected through the `X-Mock-Failure` header, as a client meets it on the wire.
@Suite struct MockFailureInjectionTests {
    @Test(arguments: [502, 503, 504])
    func aTemporaryFailureIsTemporarilyUnavailableWithItsStatus(status: Int) async throws {
        try await withBackend { client in
            let token = try await client.accessToken()
            let reply = try await client.get("/v1/tasks", token: token, failure: "temporary-\(status)")
            #expect(reply.status == status)
            #expect(try reply.error().code == "temporarily_unavailable")
            #expect(reply.header("Retry-After") == nil)
            #expect(client.backend.stats.failuresInjected == ["temporary": 1])
        }
    }

    @Test func retryAfterIsSentInSeconds() async throws {
        try await withBackend { client in
            let token = try await client.accessToken()
            let reply = try await client.get("/v1/tasks", token: token, failure: "retry-after-2")
            #expect(reply.status == 503)
            #expect(reply.header("Retry-After") == "2")
            let gateway = try await client.get("/v1/tasks", token: token, failure: "temporary-502-retry-after-7")
            #expect(gateway.status == 502)
            #expect(gateway.header("Retry-After") == "7")
        }
    }

    @Test func retryAfterIsSentAsAnHTTPDateThatReboundReads() async throws {
        try await withBackend { client in
            let token = try await client.accessToken()
            let reply = try await client.get("/v1/tasks", token: token, failure: "retry-after-date-30")
            let value = try #require(reply.header("Retry-After"))
            #expect(value.hasSuffix(" GMT"))
            #expect(value.count == "Sun, 06 Nov 1994 08:49:37 GMT".count)
            let wait = try #require(RetryAfter.parse(value, now: Date()))
            // 30 s from when the server answered, less the time the answer took to be read here.
            #expect(wait > .seconds(20) && wait <= .seconds(31))
        }
    }

    @Test func rateLimitedIs429WithRetryAfter() async throws {
        try await withBackend { client in
            let token = try await client.accessToken()
            let plain = try await client.get("/v1/tasks", token: token, failure: "rate-limited")
            #expect(plain.status == 429)
            #expect(try plain.error().code == "rate_limited")
            #expect(plain.header("Retry-After") == nil)
            let withDelay = try await client.get("/v1/tasks", token: token, failure: "rate-limited-retry-after-3")
            #expect(withDelay.header("Retry-After") == "3")
            #expect(client.backend.stats.failuresInjected == ["rate-limited": 2])
        }
    }

    @Test func tokenExpiredRejectsAValidToken() async throws {
        try await withBackend { client in
            let token = try await client.accessToken()
            let reply = try await client.get("/v1/profile", token: token, failure: "token-expired")
            #expect(reply.status == 401)
            #expect(try reply.error().code == "token_expired")
            #expect(try await client.get("/v1/profile", token: token).status == 200)
        }
    }

    @Test func aForcedCaptchaCanBeSolved() async throws {
        try await withBackend { client in
            let token = try await client.accessToken()
            let reply = try await client.get("/v1/tasks", token: token, failure: "captcha")
            #expect(reply.status == 403)
            let captcha = try #require(try reply.error().captcha)
            let answer = try MockBackendCaptchaTests.solve(captcha.question)
            let verified = try await client.send(
                .post,
                "/v1/captcha/verify",
                json: #"{"id":"\#(captcha.id)","answer":"\#(answer)"}"#,
                token: token
            )
            #expect(verified.status == 204)
        }
    }

    @Test func aForcedValidationFailureNamesItsFieldAndReason() async throws {
        try await withBackend { client in
            let token = try await client.accessToken()
            let reply = try await client.send(
                .post,
                "/v1/tasks/1/answers",
                json: #"{"answer":"cat"}"#,
                token: token,
                headers: ["X-Mock-Failure": "validation-reward-value_out_of_bounds"]
            )
            #expect(reply.status == 422)
            let error = try reply.error()
            #expect(error.code == "validation_failure")
            #expect(error.field == "reward")
            #expect(error.reason == "value_out_of_bounds")
            #expect(client.backend.stats.answersApplied == 0)
        }
    }

    @Test func malformedJSONIsA200ThatIsNotJSONAndTheRequestIsApplied() async throws {
        try await withBackend { client in
            let token = try await client.accessToken()
            let tasks = try await client.get("/v1/tasks", token: token, failure: "malformed-json")
            #expect(tasks.status == 200)
            #expect(tasks.header("Content-Type") == "application/json")
            #expect((try? JSONSerialization.jsonObject(with: tasks.body)) == nil)

            let answer = try await client.send(
                .post,
                "/v1/tasks/1/answers",
                json: #"{"answer":"cat"}"#,
                token: token,
                headers: ["X-Mock-Failure": "malformed-json"]
            )
            #expect(answer.status == 200)
            #expect(client.backend.stats.answersApplied == 1)
        }
    }

    @Test func partlyMalformedJSONSpoilsOneElementOfTheList() async throws {
        try await withBackend { client in
            let token = try await client.accessToken()
            let reply = try await client.get("/v1/tasks", token: token, failure: "partly-malformed-json")
            #expect(reply.status == 200)
            #expect((try? reply.decode([TaskItem].self)) == nil)
            let elements = try #require(try JSONSerialization.jsonObject(with: reply.body) as? [[String: Any]])
            #expect(elements.count == 7)
            #expect(elements[1]["id"] as? String == "seven")
            #expect(elements[1]["reward"] as? String == "lots")
            let others = try elements.enumerated().filter { $0.offset != 1 }.map { element in
                try JSONDecoder().decode(TaskItem.self, from: JSONSerialization.data(withJSONObject: element.element))
            }
            #expect(others.map(\.id) == [1, 3, 4, 5, 6, 7])

            let profile = try await client.get("/v1/profile", token: token, failure: "partly-malformed-json")
            let fields = try #require(try JSONSerialization.jsonObject(with: profile.body) as? [String: Any])
            #expect(fields["id"] as? String == "seven")
            #expect(fields["balance"] as? String == "lots")
            #expect(fields["username"] as? String == "alice")
        }
    }

    @Test func slowAnswersNormallyAfterTheDelay() async throws {
        try await withBackend { client in
            let token = try await client.accessToken()
            let quick = try await client.get("/v1/tasks", token: token, failure: "slow-20")
            #expect(quick.status == 200)
            #expect(try quick.decode([TaskItem].self).count == 7)

            var options = TransportOptions()
            options.timeout = .milliseconds(200)
            let error = await #expect(throws: NetworkError.self) {
                try await client.send(
                    .get,
                    "/v1/tasks",
                    token: token,
                    headers: ["X-Mock-Failure": "slow-5000"],
                    options: options
                )
            }
            #expect(error?.code == .timeout)
        }
    }

    @Test func stallNeverAnswers() async throws {
        try await withBackend { client in
            let token = try await client.accessToken()
            var options = TransportOptions()
            // Long enough for the request to reach the server first on a machine slowed down by
            // a sanitizer and the rest of the suite: a shorter limit (300 ms) has ended the
            // transfer as stalled before the server saw it.
            options.stallTimeout = .seconds(5)
            let error = await #expect(throws: NetworkError.self) {
                try await client.send(
                    .get, "/v1/tasks", token: token, headers: ["X-Mock-Failure": "stall"], options: options)
            }
            #expect(error?.code == .stalled)
            #expect(client.backend.stats.failuresInjected == ["stall": 1])
        }
    }

    @Test func closeMidBodyIsAnIncompleteResponseAfterTheAnswerWasApplied() async throws {
        try await withBackend { client in
            let token = try await client.accessToken()
            let error = await #expect(throws: NetworkError.self) {
                try await client.send(
                    .post,
                    "/v1/tasks/1/answers",
                    json: #"{"answer":"cat"}"#,
                    token: token,
                    headers: ["X-Mock-Failure": "close-mid-body", "Idempotency-Key": "k-1"]
                )
            }
            #expect(error?.code == .incompleteResponse)
            #expect(client.backend.stats.answersApplied == 1)

            // The retry with the same key gets the result the lost response carried.
            let retried = try await client.submit("cat", to: 1, token: token, key: "k-1")
            #expect(try retried.decode(AcceptedAnswer.self).answerId == 1)
            #expect(client.backend.stats.answersApplied == 1)
            #expect(client.backend.stats.duplicateSubmissions == 1)

            let verify = await #expect(throws: NetworkError.self) {
                try await client.send(
                    .post, "/v1/captcha/verify", json: "{}", token: token, headers: ["X-Mock-Failure": "close-mid-body"]
                )
            }
            #expect(verify?.code == .incompleteResponse)
        }
    }

    @Test func anOversizedBodyTripsTheTransportsLimit() async throws {
        try await withBackend { client in
            let token = try await client.accessToken()
            var options = TransportOptions()
            options.maxResponseBodySize = 100_000
            let error = await #expect(throws: NetworkError.self) {
                try await client.send(
                    .get,
                    "/v1/tasks",
                    token: token,
                    headers: ["X-Mock-Failure": "oversized-body"],
                    options: options
                )
            }
            #expect(error?.code == .responseTooLarge)

            let small = try await client.get("/v1/tasks", token: token, failure: "oversized-body-200000")
            #expect(small.status == 200)
            #expect(small.body.count == 200_000)
            #expect(small.body.first == UInt8(ascii: "["))
            #expect(client.backend.stats.failuresInjected == ["oversized-body": 2])
        }
    }

    @Test func anOversizedBodyOfIntMaxBytesStartsStreamingAtOnce() async throws {
        let backend = try await MockBackend.start()
        let connection = try RawConnection(port: backend.port)
        try connection.send(
            "GET /v1/tasks HTTP/1.1\r\nHost: loopback\r\nX-Mock-Failure: oversized-body-\(Int.max)\r\n\r\n"
        )

        // The server holds at most MockFailure.maximumOversizedBodyBytes of it as chunks sharing one
        // buffer; building Int.max / 64 KiB chunks first would exhaust its memory before the head.
        let start = try await onOwnThread { try connection.read(until: "\r\n\r\n1\r\n[\r\n10000\r\n") }

        #expect(start.hasPrefix("HTTP/1.1 200 "))
        #expect(start.contains("Transfer-Encoding: chunked\r\n"))
        try await backend.shutdown()
    }

    @Test func anUnreadableHeaderIsAValidationFailureNamingTheHeader() async throws {
        try await withBackend { client in
            let reply = try await client.get("/v1/tasks", failure: "explode")
            #expect(reply.status == 422)
            #expect(try reply.error().field == "X-Mock-Failure")
            #expect(try reply.error().reason == "invalid_format")
            #expect(client.backend.stats.totalFailuresInjected == 0)
        }
    }

    @Test func noneExemptsARequestFromTheScenarioAndTheRules() async throws {
        try await withBackend(.init(scenario: .outage(requests: 100))) { client in
            client.backend.script(MockFailureRule("POST", "/v1/login", failure: .stall, trigger: .always))
            let reply = try await client.send(
                .post,
                "/v1/login",
                json: #"{"username":"alice","password":"wonderland"}"#,
                headers: ["X-Mock-Failure": "none"]
            )
            #expect(reply.status == 200)
            #expect(client.backend.stats.totalFailuresInjected == 0)
        }
    }

    @Test func controlRoutesIgnoreTheHeader() async throws {
        try await withBackend { client in
            let reply = try await client.get("/v1/stats", failure: "stall")
            #expect(reply.status == 200)
            #expect(try reply.decode(MockBackendStats.self) == MockBackendStats())
        }
    }
}
