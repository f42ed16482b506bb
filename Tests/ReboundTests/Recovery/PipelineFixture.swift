import Foundation
import HTTPTypes
import Logging
import Rebound
import ReboundTesting

/// A task as the sample API returns it.
struct TaskItem: Codable, Equatable, Sendable {
    var id: Int
    var title: String
}

enum SampleEndpoints {
    static let listTasks = Endpoint<[TaskItem], APIErrorCode>(.get, "/tasks", errorCode: .listTasksFailed)
    static let token = Endpoint<TaskItem, APIErrorCode>(
        .post, "/token", body: Data("{}".utf8), errorCode: .getTokenFailed)
}

extension ScriptedTransport.Step {
    static func json(_ text: String, status: HTTPResponse.Status = .ok, headers: HTTPFields = [:]) -> Self {
        var fields = headers
        fields[.contentType] = "application/json"
        return .respond(status: status, headers: fields, body: Data(text.utf8))
    }

    static let tasks = json(#"[{"id":1,"title":"Label the picture"}]"#)

    static func status(_ status: HTTPResponse.Status, retryAfter: String? = nil) -> Self {
        var fields = HTTPFields()
        if let retryAfter { fields[.retryAfter] = retryAfter }
        return .respond(status: status, headers: fields, body: Data())
    }
}

func makeManager(
    _ transport: ScriptedTransport,
    handlers: [any RecoverableErrorHandler] = [],
    limits: RequestLimits = RequestLimits(),
    clock: TestClock = TestClock(),
    logger: Logger = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })
) throws -> APIDataManager {
    try APIDataManager(
        baseURL: "https://api.example.com/v1",
        transport: transport,
        handlers: handlers,
        limits: limits,
        time: clock.timeSource,
        logger: logger
    )
}

/// A seeded backend-temporary handler with a fixed schedule (no jitter) unless told otherwise.
func temporaryHandler(
    jitter: Jitter = .none,
    budget: RetryBudget = RetryBudget(),
    addsIdempotencyKey: Bool = false,
    seed: UInt64 = 7
) -> BackendTemporaryErrorHandler {
    BackendTemporaryErrorHandler(
        configuration: .init(
            backoff: Backoff(base: .milliseconds(200), multiplier: 2, cap: .seconds(10), jitter: jitter),
            addsIdempotencyKey: addsIdempotencyKey
        ),
        budget: budget,
        random: SeededRandom(seed: seed)
    )
}

/// A handler whose `prepare` takes time on the test clock, as one that reads a keychain might.
struct SlowPreparingHandler: RecoverableErrorHandler {
    let clock: TestClock
    let takes: Duration

    func recover(from failure: FailedAttempt) async throws -> RecoveryDecision { .cannotHandle }

    func prepare(_ request: inout HTTPRequest) async throws {
        clock.advance(by: takes)
    }
}

/// A handler that records being asked and answers as told.
final class ProbeHandler: RecoverableErrorHandler, @unchecked Sendable {
    let name: String
    private let answer: @Sendable (FailedAttempt) throws -> RecoveryDecision
    private let asked = Locked<[Int]>([])

    init(_ name: String, answer: @escaping @Sendable (FailedAttempt) throws -> RecoveryDecision) {
        self.name = name
        self.answer = answer
    }

    var attemptsAsked: [Int] { asked.withLock { $0 } }

    func recover(from failure: FailedAttempt) async throws -> RecoveryDecision {
        asked.withLock { $0.append(failure.attempt) }
        return try answer(failure)
    }
}
