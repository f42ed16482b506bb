import ArgumentParser
import CommandLineWidth
import Foundation
import Logging
import Rebound
import ReboundCurl
import ReboundMarketplace
import Synchronization

/// `task-client`: a session against the task marketplace, recovering from what it can and
/// explaining what it can't.
@main
struct TaskClientCommand: AsyncParsableCommand {
    /// Runs the command with help and messages wrapped to a width ArgumentParser has room for,
    /// however narrow `COLUMNS` or the terminal is.
    static func main() async {
        MessageWidth.applyToEnvironment()
        await main(nil)
    }

    static let configuration = CommandConfiguration(
        commandName: "task-client",
        abstract: "Walks a session against the task marketplace, recovering from failures on the way.",
        discussion: """
            By default it starts the mock backend in this process, so it needs no set-up. With \
            --backend it drives a standalone one (started with `mock-backend`), which it scripts \
            through the backend's control routes and resets first.

            Each step meets one kind of failure on cue (an expired token, an outage, rate limiting, \
            a dropped connection, a captcha, a validation error, broken data, a long outage that \
            opens the circuit breaker, a 429 storm that the adaptive rate limiter absorbs, a slow \
            answer hedged, the last profile shown while the backend is down); the log \
            shows every attempt and handler decision, and the result shows what a person would see.

            The captcha is answered at a prompt when standard input is a terminal; otherwise with \
            --captcha-answer, or automatically. So `task-client < /dev/null` runs unattended.

            Examples:
              task-client
              task-client --backend http://127.0.0.1:8080
              task-client --captcha-answer 7 < /dev/null
              task-client --metrics-port 9464 --metrics-linger 3
              swift run --traits OTel task-client --otlp-endpoint http://127.0.0.1:4318 --metrics-port 9464
            """
    )

    @Option(
        help: """
            The base URL of a running mock-backend, instead of starting one in this process: a scheme, \
            a host and a port, without a user, a password, a path, a query or a fragment.
            """)
    var backend: String?

    @Option(help: "The answer to give every captcha, instead of asking or solving it.")
    var captchaAnswer: String?

    @Option(help: "The seed of the in-process backend and of the retry jitter.")
    var seed: UInt64 = 7

    @Flag(help: "Hide the attempt log; show only the steps and what a person would see.")
    var quiet = false

    @Option(
        help: """
            Send spans, metrics and the failures shown (as log records) over OTLP/HTTP to this \
            collector, such as http://127.0.0.1:4318. \
            Needs a build with the package trait OTel (make run-otel).
            """)
    var otlpEndpoint: String?

    @Option(help: "Serve metrics for Prometheus at http://127.0.0.1:<port>/metrics while the session runs.")
    var metricsPort: Int?

    @Option(
        help: """
            With --metrics-port: after the session, keep serving the metrics this many seconds \
            (at most 600), so that Prometheus scrapes their final values.
            """)
    var metricsLinger: Int = 0

    func validate() throws {
        if let backend {
            // Refused rather than stripped: it is printed, and a credential in it would be too.
            guard let url = URLComponents(string: backend), url.scheme != nil, url.host != nil else {
                throw ValidationError("--backend takes a URL such as http://127.0.0.1:8080.")
            }
            guard url.user == nil, url.password == nil, url.query == nil, url.fragment == nil,
                url.path.isEmpty || url.path == "/"
            else {
                throw ValidationError(
                    "--backend takes no user, password, path, query or fragment: only a scheme, a host and a port.")
            }
        }
        guard (0...600).contains(metricsLinger) else {
            throw ValidationError("--metrics-linger takes 0 to 600 seconds, not \(metricsLinger).")
        }
        guard metricsLinger == 0 || metricsPort != nil else {
            throw ValidationError("--metrics-linger needs --metrics-port: there are no metrics to serve without it.")
        }
    }

    func run() async throws {
        let transport = CurlTransport()
        defer { transport.shutdown() }
        let telemetry = try await Telemetry.start(otlpEndpoint: otlpEndpoint, metricsPort: metricsPort)

        var inProcess: MockBackend?
        let baseURL: String
        if let backend {
            baseURL = backend
        } else {
            inProcess = try await MockBackend.start(configuration: .init(seed: seed))
            baseURL = inProcess!.baseURL
        }
        Console.write("Task client — backend \(baseURL)\(inProcess == nil ? "" : " (in this process)")")

        let control = try BackendControl(baseURL: baseURL, transport: transport)
        if inProcess == nil { try await control.reset() }

        var logger = Logger(label: "task-client") { _ in ConsoleLogHandler() }
        logger.logLevel = quiet ? .critical : .info
        let interactor = try makeInteractor(
            baseURL: baseURL, transport: transport, logger: logger, telemetry: telemetry)
        let presenter = ErrorPresenter(build: exampleBuild)

        let surprises = try await Walkthrough(
            interactor: interactor, control: control, presenter: presenter, reporter: telemetry.reporter
        ).run()
        try await inProcess?.shutdown()
        if metricsLinger > 0 {
            Console.write("\nServing the metrics \(metricsLinger) s more, for a last scrape.")
            try await Task.sleep(for: .seconds(metricsLinger))
        }
        await telemetry.stop()
        if surprises > 0 {
            Console.write("\n\(surprises) step(s) did not end as expected.")
            throw ExitCode.failure
        }
        Console.write("\nEvery step ended as expected.")
    }

    /// Builds the layers: one data manager over the transport, with every handler. The token
    /// refresh and the captcha verification go through it too, skipping the handler that sends them
    /// and the overload protections, which must never refuse or queue them behind the calls that
    /// wait for them.
    private func makeInteractor(
        baseURL: String,
        transport: CurlTransport,
        logger: Logger,
        telemetry: Telemetry
    ) throws -> TaskInteractor {
        let temporary = BackendTemporaryErrorHandler(
            configuration: .init(addsIdempotencyKey: true),
            random: SeededRandom(seed: seed)
        )
        let credentials = InMemoryCredentialStore()
        // The handlers send their own requests through the API they are part of.
        let api = APIReference()
        let auth = AuthRefreshHandler(store: credentials) { expired in
            guard let refreshToken = expired?.refreshToken else { throw RecoveryError(.noCredential) }
            let tokens = try await api.get().refresh(refreshToken)
            return Credential(
                accessToken: tokens.accessToken,
                refreshToken: tokens.refreshToken,
                expiresAt: Date().addingTimeInterval(TimeInterval(tokens.expiresIn))
            )
        }
        let captcha = CaptchaRequiredHandler(
            solver: CaptchaAnswerer(fixedAnswer: captchaAnswer),
            verifier: CaptchaVerification(api: api)
        )
        // Overload protection first, so that what it refuses costs nothing else. The break is 1 s
        // instead of the default 5 s only to keep the walk quick.
        let breaker = CircuitBreakerHandler(
            configuration: .init(breakDuration: .seconds(1)), random: SeededRandom(seed: seed), logger: logger,
            metricsFactory: telemetry.metricsFactory)
        let limiter = AdaptiveRateLimitHandler(metricsFactory: telemetry.metricsFactory)
        // The last good answers of the endpoints that opt in, per signed-in person, for when the
        // backend is down.
        let user = SignedInUser()
        let stale = StaleIfErrorHandler(scope: { user.current })
        let built = TaskAPI(
            manager: try APIDataManager(
                baseURL: baseURL, transport: transport,
                handlers: [breaker, limiter, temporary, auth, captcha, stale],
                logger: logger,
                metricsFactory: telemetry.metricsFactory, tracer: telemetry.tracer))
        api.set(built)
        return TaskInteractor(api: built, credentials: credentials, user: user)
    }
}

/// The example's build, as its error messages and telemetry name it.
let exampleBuild = BuildIdentity(version: "1.0.0", revision: "example")

/// The API, set once it is built: its handlers send requests through it.
final class APIReference: Sendable {
    /// A handler asked for the API before it was built.
    struct NotBuilt: Error {}

    private let api = Mutex<TaskAPI?>(nil)

    func set(_ built: TaskAPI) {
        api.withLock { $0 = built }
    }

    func get() throws(NotBuilt) -> TaskAPI {
        guard let built = api.withLock({ $0 }) else { throw NotBuilt() }
        return built
    }
}

/// Submits a captcha answer to the backend's verification route.
struct CaptchaVerification: CaptchaVerifier {
    let api: APIReference

    func verify(_ challenge: CaptchaChallenge, answer: String) async throws {
        try await api.get().verifyCaptcha(id: challenge.id, answer: answer)
    }
}
