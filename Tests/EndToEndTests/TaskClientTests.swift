import Foundation
import TestSupport
import Testing

/// The example, run as a person runs it: the built `task-client`, against the mock backend in
/// its own process and against a standalone `mock-backend`.
@Suite(.serialized) struct TaskClientTests {
    static let steps = [
        "1. Sign in", "2. Load the task list", "3. Submit an answer",
        "4. Open the profile after the access token expired", "5. Load the tasks during a short outage",
        "6. Open the profile while rate limited",
        "7. Submit an answer when the connection drops after the server took it",
        "8. Submit an answer when the backend wants a captcha", "9. Submit an empty answer",
        "10. Open a task whose data arrives broken",
        "11. Open the profile when the backend's first answer is slow",
        "12. Reload the task list during a long outage, until the app stops trying",
        "13. Reload when the app said to, once the service is back",
        "14. Open all seven tasks at once while the backend throttles",
        "15. Open the profile while the backend is down",
    ]

    @Test func theWholeSessionRunsUnattendedAndExitsZero() async throws {
        let result = try await ExecutableRunner.run("task-client", [], input: Data(), timeLimit: .seconds(90))
        #expect(!result.timedOut)
        #expect(result.status == 0, "\(result.stdoutText)\n\(result.stderrText)")
        let output = result.stdoutText
        for step in Self.steps { #expect(output.contains(step), "\(step)") }
        // Recoveries, as the attempt log tells them.
        #expect(output.contains("BE11-HT401 — attempt failed, recovering by AuthRefreshHandler"))
        #expect(
            output.contains("BE41-HT503 — attempt failed, recovering by BackendTemporaryErrorHandler, waiting 1.000 s"))
        // The limiter, before the retries in the list, answers a 429 by waiting for its turn.
        #expect(output.contains("BE40-HT429 — attempt failed, recovering by AdaptiveRateLimitHandler"))
        #expect(output.contains("NE8 — attempt failed, recovering by BackendTemporaryErrorHandler"))
        #expect(output.contains("BE20-HT403 — attempt failed, recovering by CaptchaRequiredHandler"))
        #expect(output.contains("solved automatically (no terminal)"))
        // What a person sees: a recoverable message with its action, an unrecoverable one with its code.
        #expect(output.contains("✗ Check your input: Some of what you entered is not valid."))
        #expect(output.contains("actions: [Edit]"))
        #expect(output.contains("error code: US12-IN3-AP4-JS5-DE4"))
        #expect(
            output.contains(
                "Technical details: UserError.taskUnavailable - InteractorError.openTask - TaskAPIError.getTaskFailed"
                    + " - JSONError.notJSON - DecodingError.dataCorrupted"
            )
        )
        // The long outage: failures until the circuit opens, then the fail-fast message, without a
        // request; once the service is back, the probe closes the circuit.
        #expect(output.contains("reload 1 failed (IN2-AP3-RE4-BE41-HT503); the person reloads again"))
        #expect(
            output.range(
                of: #"circuit 127\.0\.0\.1:\d+: closed → open, for \d\.\d{3} s\n"#, options: .regularExpression) != nil)
        #expect(output.contains("✗ Service unavailable: The service is unavailable. Please try again in"))
        #expect(output.contains("(chain US4-IN2-AP3-RE50)"))
        #expect(output.range(of: #"circuit 127\.0\.0\.1:\d+: open → halfOpen\n"#, options: .regularExpression) != nil)
        #expect(
            output.range(of: #"circuit 127\.0\.0\.1:\d+: halfOpen → closed\n   ✓ 7 tasks"#, options: .regularExpression)
                != nil)
        // The 429 storm: every throttled call waits for the limiter, none fails.
        #expect(output.contains("✓ opened 7 tasks"))
        #expect(output.contains("rate-limited 6"))
        // The slow answer: a hedge after 0.5 s wins, and the stalled attempt is abandoned.
        #expect(output.contains("GET /v1/profile attempt 2 — hedging"))
        #expect(output.contains("GET /v1/profile attempt 1 — attempt abandoned"))
        // The backend down again: the profile as last seen, with its age, logged with its chain.
        #expect(
            output.range(
                of:
                    #"GET /v1/profile: AP\d+(-RE\d+)?-BE41-HT503 — request failed, answered stale by StaleIfErrorHandler, \d+\.\d{3} s old\n"#,
                options: .regularExpression) != nil)
        #expect(
            output.range(
                of: #"✓ alice: balance [\d.]+, as last seen \d+\.\d s ago \(the backend failed: (RE\d+-)?BE41-HT503\)"#,
                options: .regularExpression) != nil)
        // The dropped connection was retried with the same Idempotency-Key and applied once.
        #expect(output.contains("duplicateSubmissions: 1"))
        #expect(output.contains("answersApplied: 3"))
        #expect(output.contains("Every step ended as expected."))
        #expect(!output.contains("Bearer"))
    }

    @Test func quietHidesTheAttemptLog() async throws {
        let result = try await ExecutableRunner.run("task-client", ["--quiet"], input: Data(), timeLimit: .seconds(90))
        #expect(result.status == 0)
        #expect(!result.stdoutText.contains("attempt failed"))
        #expect(result.stdoutText.contains("10. Open a task whose data arrives broken"))
    }

    @Test func aWrongCaptchaAnswerFromTheFlagFailsThatStepAndTheExitStatusSaysSo() async throws {
        let result = try await ExecutableRunner.run(
            "task-client", ["--quiet", "--captcha-answer", "999"], input: Data(), timeLimit: .seconds(90))
        #expect(result.status != 0)
        #expect(result.stdoutText.contains("answered from --captcha-answer: 999"))
        #expect(result.stdoutText.contains("✗ Verification failed"))
        #expect(result.stdoutText.contains("1 step(s) did not end as expected."))
    }

    @Test func theSessionRunsAgainstAStandaloneBackend() async throws {
        let backend = try await StandaloneBackend.start()
        defer { backend.stop() }
        let result = try await ExecutableRunner.run(
            "task-client", ["--backend", backend.url, "--quiet"], input: Data(), timeLimit: .seconds(90))
        #expect(result.status == 0, "\(result.stdoutText)\n\(result.stderrText)")
        #expect(result.stdoutText.contains("backend \(backend.url)\n"))
        #expect(result.stdoutText.contains("Every step ended as expected."))
        // Run twice: the client resets the backend first, so the second session sees the same.
        let again = try await ExecutableRunner.run(
            "task-client", ["--backend", backend.url, "--quiet"], input: Data(), timeLimit: .seconds(90))
        #expect(again.status == 0)
        #expect(again.stdoutText.contains("answersApplied: 3"))
    }

    @Test func aBackendURLThatIsNotAMockBackendIsAClearError() async throws {
        let result = try await ExecutableRunner.run("task-client", ["--backend", "not a url"], input: Data())
        #expect(result.status != 0)
        #expect(!result.timedOut)
    }

    /// The example prints its backend's URL: one with credentials, a query or a fragment is
    /// refused before anything is printed or sent, without being echoed.
    @Test(arguments: [
        "http://user:s3cret@127.0.0.1:1", "http://127.0.0.1:1/?token=s3cret", "http://127.0.0.1:1/#s3cret",
        "http://127.0.0.1:1/reset/s3cret",
    ])
    func aBackendURLWithCredentialsIsRefusedUnshown(url: String) async throws {
        let result = try await ExecutableRunner.run("task-client", ["--backend", url], input: Data())
        #expect(result.status == 64, "\(result.stdoutText)\n\(result.stderrText)")
        #expect(result.stderrText.contains("--backend takes no user, password, path, query or fragment"))
        #expect(!(result.stdoutText + result.stderrText).contains("s3cret"))
    }

    @Test(arguments: [["--metrics-linger", "5"], ["--metrics-port", "0", "--metrics-linger", "601"]])
    func aLingerWithoutMetricsOrBeyondTenMinutesIsRefused(arguments: [String]) async throws {
        let result = try await ExecutableRunner.run("task-client", arguments, input: Data())
        #expect(result.status == 64)
        #expect(result.stderrText.contains("--metrics-linger"), "\(result.stderrText)")
    }

    @Test func helpShowsTheExamples() async throws {
        let result = try await ExecutableRunner.run("task-client", ["--help"])
        #expect(result.status == 0)
        #expect(result.stdoutText.contains("task-client --backend http://127.0.0.1:8080"))
        #expect(result.stdoutText.contains("< /dev/null"))
    }

    /// Below 27 columns ArgumentParser stopped on an assertion (status 132): help is whole however
    /// narrow `COLUMNS` says the terminal is.
    @Test(arguments: ["0", "-9223372036854775808"])
    func helpIsWholeHoweverNarrowCOLUMNSIs(columns: String) async throws {
        let result = try await ExecutableRunner.run("task-client", ["--help"], environment: ["COLUMNS": columns])
        #expect(result.status == 0, "stderr:\n\(result.stderrText)")
        #expect(result.stdoutText.contains("OVERVIEW: "), "stdout:\n\(result.stdoutText)")
    }
}

/// The built `mock-backend`, started on an ephemeral port for one test.
///
/// Nothing changes after `init`, and a `ChildProcess` may be signalled from any thread.
final class StandaloneBackend: Sendable {
    struct StartError: Error, CustomStringConvertible { var description: String }

    let url: String
    private let process: ChildProcess

    /// Starts the backend with `--port 0 --seed 7` and `arguments`, and waits, on a thread of its own,
    /// until it says where it listens.
    static func start(arguments: [String] = []) async throws -> StandaloneBackend {
        try await onOwnThread { try StandaloneBackend(arguments: arguments) }
    }

    private init(arguments: [String]) throws {
        process = try ChildProcess(
            executable: try ExecutableRunner.executable("mock-backend").path,
            arguments: ["--port", "0", "--seed", "7"] + arguments,
            standardOutput: .pipe)
        // The first line names the port: "mock-backend listening on http://127.0.0.1:PORT".
        let reader = process.standardOutput!
        var line = Data()
        let deadline = Date().addingTimeInterval(20)
        while !line.contains(UInt8(ascii: "\n")), Date() < deadline {
            let chunk = reader.availableData
            if chunk.isEmpty { break }
            line.append(chunk)
        }
        let text = String(decoding: line, as: UTF8.self)
        guard let range = text.range(of: "http://") else {
            process.signal(SIGTERM)
            throw StartError(description: "mock-backend did not say where it listens: \(text)")
        }
        url = String(text[range.lowerBound...].prefix { !$0.isWhitespace })
    }

    /// Asks the backend to end; the process is reaped when this object goes.
    func stop() {
        process.signal(SIGTERM)
    }
}
