import ArgumentParser
import Foundation
import ReboundMockBackend

/// The `mock-backend` command: the task-marketplace mock backend as a standalone server.
///
/// It prints one line, `mock-backend listening on http://HOST:PORT`, as soon as it accepts
/// connections, then serves until SIGINT or SIGTERM and shuts down cleanly. Scripts and tests read the
/// line to learn the port when they ask for an ephemeral one (`--port 0`).
@main
struct MockBackendCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mock-backend",
        abstract: "Serve the task-marketplace mock API on loopback, with failures on demand.",
        discussion: """
            The API (all under /v1, JSON): POST /v1/login, POST /v1/token/refresh, GET /v1/tasks, \
            GET /v1/tasks/{id}, POST /v1/tasks/{id}/answers, GET /v1/profile, POST /v1/captcha/verify; \
            for tests: GET /v1/stats, POST /v1/stats/reset, GET|POST|DELETE /v1/scenario, POST /v1/reset, \
            POST /v1/clock/advance. Accounts: alice/wonderland and bob/builder.

            Failures are injected for the whole run (--scenario), for the next requests to a route \
            (POST /v1/scenario with rules), or for one request (the X-Mock-Failure header). Scenarios: \
            none, flaky[:P], outage[:N], rate-limited[:N[:S]], expiring-tokens[:SECONDS]. \
            The same --seed gives the same failures for the same sequence of requests.

            Once listening, the server prints one line, "mock-backend listening on http://HOST:PORT", \
            and serves until SIGINT or SIGTERM. See docs/mock-backend.md for everything.

            Examples:
              mock-backend
              mock-backend --port 0 --seed 42 --scenario flaky:0.5
              mock-backend --scenario outage:3 --captcha-after 2 --verbose
              mock-backend --token-lifetime 10
              curl -s localhost:8080/v1/login -d '{"username":"bob","password":"builder"}'
              curl -s -H 'X-Mock-Failure: retry-after-2' localhost:8080/v1/tasks
              curl -s localhost:8080/v1/scenario \\
                -d '[{"path":"/v1/tasks","failure":"temporary-503","times":2}]'
            """
    )

    @Option(help: "The address to listen on.")
    var host = "127.0.0.1"

    @Option(help: "The port to listen on; 0 picks a free one.")
    var port = 8080

    @Option(help: "The seed of every random choice: failures, tokens, captcha questions.")
    var seed: UInt64 = 1

    @Option(
        help: ArgumentHelp(
            "The failure scenario of the run.",
            discussion: "none, flaky[:P], outage[:N], rate-limited[:N[:S]] or expiring-tokens[:SECONDS].",
            valueName: "name"
        )
    )
    var scenario = "none"

    @Option(help: ArgumentHelp("How long an access token lives.", valueName: "seconds"))
    var tokenLifetime = 300

    @Option(
        help: ArgumentHelp(
            "How many answers a user submits before a captcha; 0 turns captchas off.",
            valueName: "n"
        )
    )
    var captchaAfter = 3

    @Option(help: ArgumentHelp("The most characters an answer may have.", valueName: "n"))
    var maxAnswerLength = 500

    @Flag(help: "Print one line per request on stderr.")
    var verbose = false

    func validate() throws {
        guard (0...65_535).contains(port) else {
            throw ValidationError("--port must be from 0 to 65535.")
        }
        guard MockScenario(scenario) != nil else {
            throw ValidationError(
                "--scenario must be one of \(MockScenario.names.joined(separator: ", ")), with an optional :parameter."
            )
        }
        guard tokenLifetime >= 1 else {
            throw ValidationError("--token-lifetime must be at least 1 second.")
        }
        guard captchaAfter >= 0 else {
            throw ValidationError("--captcha-after must not be negative.")
        }
        guard maxAnswerLength >= 1 else {
            throw ValidationError("--max-answer-length must be at least 1.")
        }
    }

    func run() async throws {
        let configuration = MockBackend.Configuration(
            seed: seed,
            scenario: MockScenario(scenario) ?? .none,
            tokenLifetime: .seconds(tokenLifetime),
            captchaAfter: captchaAfter,
            maxAnswerLength: maxAnswerLength
        )
        // Watch for signals before announcing the port, so that a signal sent right after the line
        // is read is not lost.
        let signals = TerminationSignals()
        let writeLine: @Sendable (String) -> Void = { line in Self.writeError(line) }
        let log = verbose ? writeLine : nil
        let backend: MockBackend
        do {
            backend = try await MockBackend.start(configuration: configuration, host: host, port: port, log: log)
        } catch {
            Self.writeError("mock-backend: cannot listen on \(host):\(port): \(error)")
            throw ExitCode.failure
        }
        Self.writeOutput("mock-backend listening on \(backend.baseURL)")
        let signal = await signals.next()
        Self.writeError("mock-backend: received \(signal == SIGINT ? "SIGINT" : "SIGTERM"), shutting down")
        try await backend.shutdown()
    }

    /// Writes a line to stdout at once: `FileHandle` does not buffer, so a reader sees it immediately.
    static func writeOutput(_ line: String) {
        try? FileHandle.standardOutput.write(contentsOf: Data((line + "\n").utf8))
    }

    /// Writes a line to stderr at once.
    static func writeError(_ line: String) {
        try? FileHandle.standardError.write(contentsOf: Data((line + "\n").utf8))
    }
}
