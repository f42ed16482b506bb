import Foundation
import HTTPTypes
import ReboundMarketplace
import ReboundMockBackend
import Testing

@Suite struct MockBackendTaskTests {
    @Test func theTaskListHasTheSevenSeededTasks() async throws {
        try await withBackend { client in
            let token = try await client.accessToken()
            let tasks = try await client.get("/v1/tasks", token: token).decode([TaskItem].self)
            #expect(tasks.map(\.id) == Array(1...7))
            #expect(tasks[0].reward == 0.05)
            #expect(tasks[0].status == "open")
            #expect(tasks[0].tags == ["image", "classification"])
            #expect(tasks.filter { $0.status == "closed" }.map(\.id) == [5])
        }
    }

    @Test func aTaskIsFoundByItsIDAndAnUnknownOneIsNotFound() async throws {
        try await withBackend { client in
            let token = try await client.accessToken()
            let task = try await client.get("/v1/tasks/3", token: token).decode(TaskItem.self)
            #expect(task.id == 3)
            #expect(task.reward == 0.03)
            for target in ["/v1/tasks/99", "/v1/tasks/three"] {
                let missing = try await client.get(target, token: token)
                #expect(missing.status == 404)
                #expect(try missing.error().code == "not_found")
            }
        }
    }

    @Test func anAcceptedAnswerCreditsTheRewardToTheProfile() async throws {
        try await withBackend { client in
            let token = try await client.accessToken()
            let first = try await client.submit("cat", to: 1, token: token)
            #expect(first.status == 201)
            #expect(try first.decode(AcceptedAnswer.self) == AcceptedAnswer(answerId: 1, taskId: 1, accepted: true))
            let second = try await client.submit("TOTAL 12.40", to: 2, token: token)
            #expect(try second.decode(AcceptedAnswer.self).answerId == 2)
            let profile = try await client.get("/v1/profile", token: token).decode(Profile.self)
            #expect(profile == Profile(id: 1, username: "alice", balance: 0.17, answers: 2))
            #expect(client.backend.stats.answersApplied == 2)
        }
    }

    @Test func aRepeatedIdempotencyKeyGetsTheFirstResultAndIsAppliedOnce() async throws {
        try await withBackend { client in
            let token = try await client.accessToken()
            let first = try await client.submit("cat", to: 1, token: token, key: "k-1")
            let repeated = try await client.submit("cat", to: 1, token: token, key: "k-1")
            #expect(first.status == 201)
            #expect(repeated.status == 201)
            #expect(repeated.body == first.body)
            #expect(repeated.header("Idempotent-Replayed") == "true")
            #expect(first.header("Idempotent-Replayed") == nil)

            let other = try await client.submit("cat", to: 1, token: token, key: "k-2")
            #expect(try other.decode(AcceptedAnswer.self).answerId == 2)

            let stats = client.backend.stats
            #expect(stats.answersApplied == 2)
            #expect(stats.duplicateSubmissions == 1)
            #expect(try await client.get("/v1/profile", token: token).decode(Profile.self).answers == 2)
        }
    }

    @Test func aKeyReusedForADifferentRequestIsADuplicateRequest() async throws {
        try await withBackend { client in
            let token = try await client.accessToken()
            _ = try await client.submit("cat", to: 1, token: token, key: "k-1")
            let different = try await client.submit("dog", to: 1, token: token, key: "k-1")
            #expect(different.status == 409)
            #expect(try different.error().code == "duplicate_request")
            #expect(client.backend.stats.answersApplied == 1)
        }
    }

    @Test func idempotencyKeysBelongToOneUser() async throws {
        try await withBackend { client in
            let alice = try await client.accessToken()
            let bob = try await client.accessToken("bob", "builder")
            let fromAlice = try await client.submit("cat", token: alice, key: "same")
            let fromBob = try await client.submit("cat", token: bob, key: "same")
            #expect(try fromAlice.decode(AcceptedAnswer.self).answerId == 1)
            #expect(try fromBob.decode(AcceptedAnswer.self).answerId == 2)
            #expect(client.backend.stats.duplicateSubmissions == 0)
        }
    }

    struct InvalidAnswer: Sendable, CustomTestStringConvertible {
        var body: String
        var field: String
        var reason: String
        var testDescription: String { body }
    }

    static let invalidAnswers = [
        InvalidAnswer(body: #"{"answer":""}"#, field: "answer", reason: "missing_value"),
        InvalidAnswer(body: #"{"answer":"   "}"#, field: "answer", reason: "missing_value"),
        InvalidAnswer(body: #"{}"#, field: "answer", reason: "missing_value"),
        InvalidAnswer(body: #"{"answer":42}"#, field: "answer", reason: "invalid_format"),
        InvalidAnswer(
            body: #"{"answer":"\#(String(repeating: "x", count: 11))"}"#, field: "answer", reason: "too_long"),
        InvalidAnswer(body: #"{"answer":"cat","reward":0.5}"#, field: "reward", reason: "value_out_of_bounds"),
        InvalidAnswer(body: #"{"answer":"cat","reward":-0.01}"#, field: "reward", reason: "value_out_of_bounds"),
        InvalidAnswer(body: #"{"answer":"cat","reward":"lots"}"#, field: "reward", reason: "invalid_format"),
    ]

    @Test(arguments: invalidAnswers)
    func anInvalidAnswerIsAValidationFailureNamingItsField(_ invalid: InvalidAnswer) async throws {
        try await withBackend(.init(maxAnswerLength: 10)) { client in
            let token = try await client.accessToken()
            let reply = try await client.send(.post, "/v1/tasks/1/answers", json: invalid.body, token: token)
            #expect(reply.status == 422)
            let error = try reply.error()
            #expect(error.code == "validation_failure")
            #expect(error.field == invalid.field)
            #expect(error.reason == invalid.reason)
            #expect(!error.message.isEmpty)
            #expect(client.backend.stats.answersApplied == 0)
        }
    }

    @Test func anAnswerAtTheLimitsIsAccepted() async throws {
        try await withBackend(.init(maxAnswerLength: 10)) { client in
            let token = try await client.accessToken()
            let reply = try await client.submit("xxxxxxxxxx", to: 1, token: token, extraFields: #","reward":0.05"#)
            #expect(reply.status == 201)
        }
    }

    @Test func anAnswerBodyThatIsNotJSONIsInvalidFormat() async throws {
        try await withBackend { client in
            let token = try await client.accessToken()
            let reply = try await client.send(.post, "/v1/tasks/1/answers", json: "answer=cat", token: token)
            #expect(reply.status == 400)
            #expect(try reply.error().reason == "invalid_format")
        }
    }

    @Test func answeringAClosedTaskIsAConflict() async throws {
        try await withBackend { client in
            let token = try await client.accessToken()
            let reply = try await client.submit("here", to: 5, token: token)
            #expect(reply.status == 409)
            #expect(try reply.error().code == "conflict")
            #expect(try await client.submit("here", to: 99, token: token).status == 404)
        }
    }

    @Test func anUnknownRouteIsNotFoundAndAWrongMethodIsNotAllowed() async throws {
        try await withBackend { client in
            let unknown = try await client.get("/v1/nothing-here")
            #expect(unknown.status == 404)
            #expect(try unknown.error().code == "not_found")
            let wrongMethod = try await client.send(.delete, "/v1/tasks")
            #expect(wrongMethod.status == 405)
            #expect(wrongMethod.header("Allow") == "GET")
            #expect(try wrongMethod.error().code == "not_found")
            #expect(client.backend.stats.requests(to: "GET /v1/nothing-here") == 1)
            #expect(client.backend.stats.requests(to: "DELETE /v1/tasks") == 1)
        }
    }

    @Test func aHeadRequestGetsTheHeadOfTheGetAnswer() async throws {
        try await withBackend { client in
            let token = try await client.accessToken()
            let reply = try await client.send(.head, "/v1/tasks", token: token)
            #expect(reply.status == 200)
            #expect(reply.body.isEmpty)
        }
    }
}
