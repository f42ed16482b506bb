import ArgumentParser
import CommandLineWidth
import Foundation
import NIOCore
import ReboundMarketplace
import ReboundMockBackend

/// The `mock-backend` command: the task-marketplace mock backend as a standalone server.
///
/// It prints one line, `mock-backend listening on http://HOST:PORT`, as soon as it accepts
/// connections, then serves until SIGINT or SIGTERM and shuts down cleanly. Scripts and tests read the
/// line to learn the port when they ask for an ephemeral one (`--port 0`).
@main
struct MockBackendCommand: AsyncParsableCommand {
    /// Runs the command with help and messages wrapped to a width ArgumentParser has room for,
    /// however narrow `COLUMNS` or the terminal is.
    static func main() async {
        MessageWidth.applyToEnvironment()
        await main(nil)
    }

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

            The limits (--max-request-body-size and the options after it) bound what clients can make \
            the server hold; see LoopbackServer.Limits in docs/mock-backend.md.

            Once listening, the server prints one line, "mock-backend listening on http://HOST:PORT", \
            and serves until SIGINT or SIGTERM. See docs/mock-backend.md for everything.

            Examples:
              mock-backend
              mock-backend --port 0 --seed 42 --scenario flaky:0.5
              mock-backend --scenario outage:3 --captcha-after 2 --verbose
              mock-backend --token-lifetime 10
              mock-backend --max-connections 200 --idle-timeout 10
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

    @Option(
        help: ArgumentHelp(
            "The largest request body accepted; a larger one gets 413 and the connection closes.",
            valueName: "bytes"
        )
    )
    var maxRequestBodySize = LoopbackServer.Limits.default.maxRequestBodySize

    @Option(
        help: ArgumentHelp(
            "The most pipelined requests a connection holds while answering one; beyond it the server stops reading.",
            valueName: "n"
        )
    )
    var maxQueuedRequests = LoopbackServer.Limits.default.maxQueuedRequests

    @Option(
        help: ArgumentHelp(
            "The most connections open at once; the server closes any beyond them at once.",
            valueName: "n"
        )
    )
    var maxConnections = LoopbackServer.Limits.default.maxConnections

    @Option(
        help: ArgumentHelp(
            "How long a connection may wait for a request head before the server closes it.",
            valueName: "seconds"
        )
    )
    var idleTimeout = Self.seconds(of: LoopbackServer.Limits.default.idleTimeout)

    @Option(
        help: ArgumentHelp(
            "How long a request body may take to arrive; a slower one gets 408 and the connection closes.",
            valueName: "seconds"
        )
    )
    var requestBodyTimeout = Self.seconds(of: LoopbackServer.Limits.default.requestBodyTimeout)

    @Option(
        help: ArgumentHelp(
            "The most distinct paths counted one by one in the stats; requests to later ones are counted together.",
            valueName: "n"
        )
    )
    var maxTrackedPaths = LoopbackServer.Limits.default.maxTrackedPaths

    /// The server's limits, as the options give them.
    var limits: LoopbackServer.Limits {
        LoopbackServer.Limits(
            maxRequestBodySize: maxRequestBodySize,
            maxQueuedRequests: maxQueuedRequests,
            maxConnections: maxConnections,
            idleTimeout: .seconds(idleTimeout),
            requestBodyTimeout: .seconds(requestBodyTimeout),
            maxTrackedPaths: maxTrackedPaths
        )
    }

    /// The longest timeout accepted, in seconds (about 31 years): longer ones mean "never" just as well,
    /// and a `Duration` cannot hold every `Double`.
    static let maximumTimeoutSeconds = 1_000_000_000.0

    func validate() throws {
        guard (0...65_535).contains(port) else {
            throw ValidationError("--port must be from 0 to 65535.")
        }
        guard MockScenario(scenario) != nil else {
            throw ValidationError(
                "--scenario must be one of \(MockScenario.names.joined(separator: ", ")), with an optional :parameter."
            )
        }
        let wholeNumbers: [(option: String, value: Int, minimum: Int, unit: String)] = [
            ("--token-lifetime", tokenLifetime, 1, " second"),
            ("--captcha-after", captchaAfter, 0, ""),
            ("--max-answer-length", maxAnswerLength, 1, ""),
            ("--max-request-body-size", maxRequestBodySize, 0, ""),
            ("--max-queued-requests", maxQueuedRequests, 1, ""),
            ("--max-connections", maxConnections, 1, ""),
            ("--max-tracked-paths", maxTrackedPaths, 0, ""),
        ]
        for number in wholeNumbers where number.value < number.minimum {
            throw ValidationError(
                number.minimum == 0
                    ? "\(number.option) must not be negative."
                    : "\(number.option) must be at least \(number.minimum)\(number.unit).")
        }
        guard maxRequestBodySize <= LoopbackServer.Limits.maximumRequestBodySize else {
            throw ValidationError(
                "--max-request-body-size must be at most \(LoopbackServer.Limits.maximumRequestBodySize) (1 GiB), "
                    + "the most a request body may hold.")
        }
        for (option, seconds) in [("--idle-timeout", idleTimeout), ("--request-body-timeout", requestBodyTimeout)] {
            // `!(… > 0)` also refuses NaN.
            guard seconds > 0, seconds <= Self.maximumTimeoutSeconds else {
                throw ValidationError(
                    "\(option) must be a number of seconds above 0, at most \(Int(Self.maximumTimeoutSeconds)).")
            }
            // The server keeps whole nanoseconds: a shorter timeout would close every connection at once.
            guard Duration.seconds(seconds) >= LoopbackServer.Limits.minimumTimeout else {
                throw ValidationError(
                    "\(option) must be at least 0.000000001 (1 nanosecond, the finest timeout the server keeps).")
            }
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
            backend = try await MockBackend.start(
                configuration: configuration, host: host, port: port, limits: limits, log: log)
        } catch let error as IOError {
            // SwiftNIO's own text names its internals and misplaces a parenthesis ("bind(descriptor:
            // ptr:bytes:): Address already in use) (errno: 98)"); the system's words are enough.
            Self.writeError(
                "mock-backend: cannot listen on \(host):\(port): \(String(cString: strerror(error.errnoCode))) "
                    + "(errno \(error.errnoCode))")
            throw ExitCode.failure
        } catch {
            Self.writeError("mock-backend: cannot listen on \(host):\(port): \(error)")
            throw ExitCode.failure
        }
        Self.writeOutput("mock-backend listening on \(backend.baseURL)")
        let signal = await signals.next()
        Self.writeError("mock-backend: received \(signal == SIGINT ? "SIGINT" : "SIGTERM"), shutting down")
        try await backend.shutdown()
    }

    /// `duration` in seconds, as the timeout options take it.
    static func seconds(of duration: Duration) -> Double {
        let (seconds, attoseconds) = duration.components
        return Double(seconds) + Double(attoseconds) / 1e18
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
