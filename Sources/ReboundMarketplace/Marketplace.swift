internal import Foundation
import NIOConcurrencyHelpers
import ReboundMockBackend

/// The marketplace behind ``MockBackend``.
///
/// It routes a request, injects the failure the plan or the request asks for, and answers. How a
/// request flows:
///
/// ```
/// request ─▶ MarketplaceRoute ─┬─ control route ─────────────────────────────▶ control(_:_:)
///                              └─ counted in stats ─▶ X-Mock-Failure header?
///                                    │ no header             │ a failure, or "none"
///                                    ▼                       │
///                             FailurePlan: rules, scenario   │
///                                    └───────┬───────────────┘
///                           no failure ◀─────┴─────▶ inject(_:into:) ─▶ maybe respond(to:) first
///                                ▼
///                           respond(to:) under the lock
/// ```
///
/// All state is one ``MarketplaceState`` value behind a `NIOLockedValueBox` (a pthread mutex, which
/// the thread sanitizer understands); each request takes the lock once to be counted and once to be
/// answered, and never waits while holding it.
final class Marketplace: Sendable {
    private let state: NIOLockedValueBox<MarketplaceState>
    private let configuration: MockBackend.Configuration
    private let log: (@Sendable (String) -> Void)?
    /// The most routes ``MockBackendStats/requestsPerRoute`` counts one by one.
    private let maxTrackedRoutes: Int

    init(configuration: MockBackend.Configuration, maxTrackedRoutes: Int, log: (@Sendable (String) -> Void)?) {
        self.configuration = configuration
        self.maxTrackedRoutes = maxTrackedRoutes
        self.log = log
        state = NIOLockedValueBox(MarketplaceState(configuration: configuration))
    }

    /// Runs `body` with exclusive access to the state.
    func withState<Result>(_ body: (inout MarketplaceState) -> Result) -> Result {
        state.withLockedValue(body)
    }

    /// Puts everything back as it was when the backend started.
    func reset() {
        withState { $0 = MarketplaceState(configuration: configuration) }
    }

    /// Answers one request.
    func handle(_ request: LoopbackRequest) async -> LoopbackReply {
        let route = MarketplaceRoute(method: request.method, path: request.path)
        let (reply, note) =
            route.isControl ? (control(route, request).reply, "") : await answer(route, request)
        if let log {
            log("\(request.method) \(request.target) → \(Self.summary(of: reply))\(note)")
        }
        return reply
    }

    /// What the header asks for: a failure, explicitly none, or something unreadable.
    private enum HeaderInstruction {
        case absent
        case none
        case failure(MockFailure)
        case unreadable(String)
    }

    private static func instruction(in request: LoopbackRequest) -> HeaderInstruction {
        guard let value = request.header(MockBackend.failureHeaderName) else { return .absent }
        if value.trimmed(of: " \t") == "none" { return .none }
        guard let failure = MockFailure(value) else { return .unreadable(value) }
        return .failure(failure)
    }

    /// Answers a marketplace request, with any failure injected; the note names the failure for the log.
    private func answer(_ route: MarketplaceRoute, _ request: LoopbackRequest) async -> (LoopbackReply, String) {
        let instruction = Self.instruction(in: request)
        let failure: MockFailure? = withState { state in
            let key = "\(request.method) \(route.template ?? request.path)"
            state.stats.countRequest(to: key, maxTrackedRoutes: maxTrackedRoutes)
            let failure: MockFailure?
            switch instruction {
            case .absent: failure = state.failurePlan.failure(method: request.method, path: request.path)
            case .none, .unreadable: failure = nil
            case .failure(let chosen): failure = chosen
            }
            if let failure { state.stats.failuresInjected[failure.kind, default: 0] += 1 }
            return failure
        }
        if case .unreadable(let value) = instruction {
            let response = APIResponse.invalid(
                MockBackend.failureHeaderName,
                .invalidFormat,
                "\"\(value)\" is not a mock failure; see docs/mock-backend.md for the spellings."
            )
            return (response.reply, "")
        }
        guard let failure else { return (respond(to: route, request).reply, "") }
        return (await inject(failure, into: route, request), " (injected \(failure))")
    }

    // MARK: - Normal answers

    /// The marketplace's own answer to `request`, changing the state as the route does.
    private func respond(to route: MarketplaceRoute, _ request: LoopbackRequest) -> APIResponse {
        withState { state in
            switch route {
            case .login:
                return state.login(body: request.body)
            case .refreshToken:
                return state.refresh(body: request.body)
            case .methodNotAllowed(let allowed):
                return .error(
                    .notFound,
                    status: 405,
                    message:
                        "\(request.path) does not take \(request.method); it takes \(allowed.joined(separator: ", ")).",
                    headers: [("Allow", allowed.joined(separator: ", "))]
                )
            case .unknown:
                return .error(.notFound, message: "There is no route \(request.method) \(request.path).")
            case .stats, .resetStats, .showScenario, .addToScenario, .clearScenario, .reset, .advanceClock:
                return .error(.internalError, message: "A control route reached the marketplace.")
            case .tasks, .task, .answers, .profile, .verifyCaptcha:
                break
            }
            let account: Int
            switch state.authenticate(request) {
            case .success(let index): account = index
            case .failure(let failure): return failure.response
            }
            switch route {
            case .tasks:
                return state.listTasks()
            case .task(let id):
                return state.showTask(id)
            case .answers(let taskID):
                return state.submitAnswer(
                    taskID: taskID,
                    body: request.body,
                    idempotencyKey: request.header("idempotency-key"),
                    accountIndex: account
                )
            case .profile:
                return state.profile(of: account)
            case .verifyCaptcha:
                return state.verifyCaptcha(body: request.body, accountIndex: account)
            default:
                return .error(.internalError, message: "The route was lost on its way.")
            }
        }
    }

    // MARK: - Injected failures

    /// The reply with `failure` injected: instead of the answer, or after it (see ``MockFailure/appliesRequest``).
    private func inject(_ failure: MockFailure, into route: MarketplaceRoute, _ request: LoopbackRequest) async
        -> LoopbackReply
    {
        switch failure {
        case .temporary(let status, let retryAfter):
            return APIResponse.error(
                .temporarilyUnavailable,
                status: status,
                message: "The service is temporarily unavailable. Try again later.",
                headers: Self.retryAfterHeader(retryAfter)
            ).reply
        case .rateLimited(let retryAfter):
            return APIResponse.error(
                .rateLimited,
                message: "Too many requests. Slow down and try again later.",
                headers: Self.retryAfterHeader(retryAfter)
            ).reply
        case .tokenExpired:
            return APIResponse.error(.tokenExpired, message: "The access token expired. Refresh it.").reply
        case .captcha:
            return withState { state in
                let account = try? state.authenticate(request).get()
                return state.captchaRequired(accountIndex: account)
            }.reply
        case .validation(let field, let reason):
            return APIResponse.invalid(field, reason, "\(field) is not valid (\(reason.rawValue)).").reply
        case .stall:
            return .stall
        case .slow(let milliseconds):
            do {
                try await Task.sleep(for: .milliseconds(milliseconds))
            } catch {
                // The client went away while we waited: nothing to answer, and nothing applied.
                return .closeWithoutResponse
            }
            return respond(to: route, request).reply
        case .malformedJSON:
            _ = respond(to: route, request)
            return .respond(status: 200, headers: [APIResponse.jsonContentType], body: Self.malformedBody)
        case .partlyMalformedJSON:
            let response = respond(to: route, request)
            guard let value = JSONValue.parse(response.body) else { return response.reply }
            let otherHeaders = response.headers.filter { !$0.0.caseInsensitiveEquals("content-type") }
            return APIResponse.json(value.mangled(), status: response.status, headers: otherHeaders).reply
        case .closeMidBody:
            let response = respond(to: route, request)
            guard response.body.count >= 2, response.status >= 200, response.status != 204 else {
                let partial = Array(#"{"partial":"#.utf8)
                return .closeMidBody(
                    status: 200,
                    headers: [APIResponse.jsonContentType],
                    declaredLength: 64,
                    partialBody: partial
                )
            }
            return .closeMidBody(
                status: response.status,
                headers: response.headers,
                declaredLength: response.body.count,
                partialBody: Array(response.body.prefix(response.body.count / 2))
            )
        case .oversizedBody(let bytes):
            _ = respond(to: route, request)
            return Self.oversizedReply(bytes: bytes)
        }
    }

    /// What a server answers when something in front of it serves a page instead of the API.
    private static let malformedBody = Array(
        "<html><head><title>Maintenance</title></head><body><h1>Back soon</h1></body></html>\n".utf8
    )

    private static func retryAfterHeader(_ retryAfter: MockFailure.RetryAfter?) -> [(String, String)] {
        switch retryAfter {
        case nil:
            return []
        case .seconds(let seconds):
            return [("Retry-After", String(seconds))]
        case .date(let secondsFromNow):
            // Rounded up, so that the date is never earlier than asked; the client compares it with
            // its own wall clock, so the backend's advanced clock plays no part.
            let now = Int64(Date().timeIntervalSince1970.rounded(.up))
            // Saturating, and kept within years that have four digits, as an HTTP date must: a test
            // asking for `Int.max` seconds gets the latest date there is, not a crash.
            let (sum, overflow) = now.addingReportingOverflow(Int64(secondsFromNow))
            let date = overflow ? (secondsFromNow < 0 ? Int64.min : Int64.max) : sum
            return [("Retry-After", HTTPDate.format(secondsSince1970: date.clamped(to: Self.retryAfterDates)))]
        }
    }

    /// The dates a `Retry-After` can name: from 1970 to the last second of 9999, the last year of four digits.
    private static let retryAfterDates: ClosedRange<Int64> = 0...253_402_300_799

    /// The size of each chunk of an oversized body: large enough to stream fast, small enough to hold.
    private static let oversizedChunkSize = 64 * 1024

    /// One chunk of an oversized body: task-like objects, repeated. Every full chunk shares its storage.
    private static let oversizedChunk: [UInt8] = {
        let element = Array(#"{"id":7,"title":"padding","reward":0.01,"status":"open","tags":["x"]},"#.utf8)
        var chunk: [UInt8] = []
        chunk.reserveCapacity(oversizedChunkSize)
        while chunk.count < oversizedChunkSize {
            chunk += element.prefix(oversizedChunkSize - chunk.count)
        }
        return chunk
    }()

    /// 200 streaming `bytes` bytes of a JSON-like list: at least 1 and at most
    /// ``MockFailure/maximumOversizedBodyBytes``.
    ///
    /// The body is chunked, without a `Content-Length`, so a client learns the size only by reading.
    private static func oversizedReply(bytes: Int) -> LoopbackReply {
        let total = min(max(1, bytes), MockFailure.maximumOversizedBodyBytes)
        var chunks: [[UInt8]] = [[UInt8(ascii: "[")]]
        var remaining = total - 1
        while remaining > 0 {
            let size = min(remaining, oversizedChunkSize)
            chunks.append(size == oversizedChunkSize ? oversizedChunk : Array(oversizedChunk.prefix(size)))
            remaining -= size
        }
        return .stream(status: 200, headers: [APIResponse.jsonContentType], chunks: chunks, pause: .zero)
    }

    /// A reply in a few words, for the log.
    private static func summary(of reply: LoopbackReply) -> String {
        switch reply {
        case .respond(let status, _, _): "\(status)"
        case .stream(let status, _, let chunks, _): "\(status), streamed in \(chunks.count) chunks"
        case .closeMidBody(let status, _, _, _): "\(status), closed mid-body"
        case .stallMidBody(let status, _, _, _): "\(status), stalled mid-body"
        case .stall: "no answer (stall)"
        case .closeWithoutResponse: "closed without a response"
        case .delayed(let delay, let inner): "\(summary(of: inner)) after \(delay)"
        case .raw(let chunks, _, _): "\(chunks.reduce(0) { $0 + $1.count }) raw bytes"
        }
    }
}

extension Comparable {
    /// The value, or the nearer bound of `range` if it falls outside it.
    fileprivate func clamped(to range: ClosedRange<Self>) -> Self {
        min(max(self, range.lowerBound), range.upperBound)
    }
}
