import ArgumentParser
import HTTPTypes
import Rebound
import ReboundCurl
#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// `rebound fetch URL`: one request through the recovery pipeline, over libcurl.
///
/// ```
/// URL ─► FetchTarget ─► APIDataManager(handlers: [BackendTemporaryErrorHandler])
///                                │ over CurlTransport
///                                ▼
///          success: body on stdout, attempts from the response's AttemptHistory
///          failure: nothing on stdout, attempts from the error's AttemptHistory
///                                ▼
///          attempt log and presentation on stderr, or one JSON object on stdout (--json)
/// ```
struct FetchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fetch",
        abstract: "Send one HTTP request through Rebound's recovery pipeline, like curl with retries.",
        discussion: """
            The request goes through BackendTemporaryErrorHandler over libcurl. It retries 408, 429, \
            502, 503 and 504 answers and transient network failures (timeouts, refused or reset \
            connections), waiting with exponential backoff and jitter, or as long as the server's \
            Retry-After asks (up to 60 s). Only idempotent methods (GET, HEAD, OPTIONS, PUT, DELETE, \
            TRACE) are retried, or a request with an Idempotency-Key. A retry budget of 10 tokens \
            allows at most 4 retries in a row, however high --max-attempts is: a fifth retryable \
            failure ends the request (RE4).

            The body of a successful response goes to stdout as it is; a line per attempt (status or \
            error chain, the wait before it, the handler that retried it) and, on failure, what a \
            person would be told go to stderr. With --json, stdout gets one JSON object instead and \
            stderr stays empty. See docs/cli.md for the schema. The URL is shown with its user \
            information and secrets (such as ?access_token=…) redacted; it is sent as given.

            Examples:
              rebound fetch https://api.example.com/v1/tasks
              rebound fetch -X POST -H 'Content-Type: application/json' \\
                -d '{"title":"Write"}' --idempotency-key auto \\
                https://api.example.com/v1/tasks
              rebound fetch -X PUT -d @task.json https://api.example.com/v1/tasks/7
              rebound fetch --max-attempts 6 --base-delay 0.5 --jitter equal URL
              rebound fetch --timeout 2 --deadline 60 URL
              rebound fetch --json --seed 42 http://127.0.0.1:8080/status?code=503

            Exit status: 0 success (2xx), 1 the server's last answer was not 2xx, 3 no answer \
            (network failure), 64 invalid arguments.
            """
    )

    @Argument(help: "The http or https URL to request.")
    var url: String

    @Option(
        name: [.customShort("X"), .long],
        help: ArgumentHelp(
            "The request method, sent as given (default: GET, or POST with --data).", valueName: "method"))
    var method: String?

    @Option(
        name: [.customShort("H"), .long],
        help: ArgumentHelp("A header field, as 'Name: value'; repeat for more.", valueName: "header"))
    var header: [String] = []

    @Option(
        name: [.customShort("d"), .long],
        help: ArgumentHelp(
            "The request body; @FILE sends a file's bytes, @- reads stdin. Sets no Content-Type: add one with -H.",
            valueName: "data"))
    var data: String?

    @OptionGroup(title: "Retry policy")
    var policy: RetryPolicyOptions

    @OptionGroup
    var timeLimits: RequestLimitOptions

    @Option(
        help: ArgumentHelp(
            "Make a non-idempotent request safe to retry: 'auto' generates an Idempotency-Key, the same on every attempt; anything else is sent as the key.",
            valueName: "auto|key"))
    var idempotencyKey: IdempotencyKeyOption?

    @Flag(help: "Print one JSON object on stdout instead of the body, and nothing on stderr.")
    var json = false

    func validate() throws {
        _ = try request()
    }

    func run() async throws {
        let request = try request()
        let body = try data.map(Self.readBody)
        let outcome = await send(request, body: body)
        // The URL as given may hold a secret (`?access_token=…`): only the screened one is shown.
        if json {
            StandardStreams.writeOutput(try JSONOutput.line(outcome.report(url: request.target.shown)))
        } else {
            outcome.writeForPeople(method: request.method, url: request.target.shown)
        }
        if outcome.exitCode != .success { throw outcome.exitCode.exitCode }
    }

    // MARK: - The request

    /// Everything about the request that the arguments fix, checked.
    private struct Request {
        var target: FetchTarget
        var method: HTTPRequest.Method
        var headerFields: HTTPFields
        var generatesIdempotencyKey: Bool
    }

    /// The request the arguments describe, without its body, which is read only when sending.
    private func request() throws(ValidationError) -> Request {
        let target = try FetchTarget(url)
        var fields = try HeaderArguments.fields(from: header)
        // As curl does: GET, or POST when there is a body.
        var parsedMethod: HTTPRequest.Method = data == nil ? .get : .post
        if let method {
            guard let valid = HTTPRequest.Method(method) else {
                throw ValidationError("'\(method)' is not a valid method; a method is a token such as GET or POST.")
            }
            parsedMethod = valid
        }
        var generatesKey = false
        switch idempotencyKey {
        case .automatic:
            generatesKey = true
        case .key(let key):
            guard fields[BackendTemporaryErrorHandler.idempotencyKey] == nil else {
                throw ValidationError("The Idempotency-Key is given twice: with --idempotency-key and with -H.")
            }
            fields[BackendTemporaryErrorHandler.idempotencyKey] = key
        case nil:
            break
        }
        return Request(
            target: target, method: parsedMethod, headerFields: fields, generatesIdempotencyKey: generatesKey)
    }

    // MARK: - Sending

    private func send(_ request: Request, body: Data?) async -> FetchOutcome {
        let configuration = BackendTemporaryErrorHandler.Configuration(
            backoff: policy.backoff,
            addsIdempotencyKey: request.generatesIdempotencyKey
        )
        let handler =
            if let seed = policy.seed {
                BackendTemporaryErrorHandler(configuration: configuration, random: SeededRandom(seed: seed))
            } else {
                BackendTemporaryErrorHandler(configuration: configuration)
            }
        let transport = CurlTransport()
        defer { transport.shutdown() }
        let limits = timeLimits.limits(maxAttempts: policy.maxAttempts)
        let endpoint = Endpoint<TransportResponse, FetchErrorCode>(
            raw: request.method,
            request.target.pathAndQuery,
            headerFields: request.headerFields,
            body: body,
            errorCode: .requestFailed
        )
        let clock = ContinuousClock()
        let started = clock.now
        do {
            let api = try APIDataManager(
                baseURL: request.target.baseURL, transport: transport, handlers: [handler], limits: limits)
            let answer = try await api.response(for: endpoint)
            return FetchOutcome(
                result: .success(answer.value),
                attempts: answer.history.attempts.map(FetchAttempt.init),
                elapsed: started.duration(to: clock.now)
            )
        } catch {
            let history = error.attachment(AttemptHistory.self)?.attempts ?? []
            return FetchOutcome(
                result: .failure(error),
                attempts: history.map(FetchAttempt.init),
                elapsed: started.duration(to: clock.now)
            )
        }
    }
}
