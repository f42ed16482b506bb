import ArgumentParser
import Foundation
import ReboundMockBackend
import Testing

@testable import MockBackendServer

/// The `mock-backend` executable's options, parsed in process and run as the built binary.
@Suite struct MockBackendCommandTests {
    @Test func everyLimitHasAnOptionAndTheDefaultsAreTheServers() throws {
        #expect(try MockBackendCommand.parse([]).limits == LoopbackServer.Limits.default)

        let command = try MockBackendCommand.parse([
            "--max-request-body-size", "1000", "--max-queued-requests", "2", "--max-connections", "3",
            "--idle-timeout", "4.5", "--request-body-timeout", "6", "--max-tracked-paths", "0",
        ])

        #expect(
            command.limits
                == LoopbackServer.Limits(
                    maxRequestBodySize: 1000,
                    maxQueuedRequests: 2,
                    maxConnections: 3,
                    idleTimeout: .milliseconds(4500),
                    requestBodyTimeout: .seconds(6),
                    maxTrackedPaths: 0
                )
        )
    }

    @Test(arguments: [
        (["--max-request-body-size=-1"], "--max-request-body-size must not be negative"),
        (["--max-request-body-size", "6000000000"], "--max-request-body-size must be at most 1073741824"),
        (["--max-request-body-size", "1073741825"], "--max-request-body-size must be at most 1073741824"),
        (["--idle-timeout", "0.0000000001"], "--idle-timeout must be at least 0.000000001"),
        (["--request-body-timeout", "1e-10"], "--request-body-timeout must be at least 0.000000001"),
        (["--max-queued-requests", "0"], "--max-queued-requests must be at least 1"),
        (["--max-connections", "0"], "--max-connections must be at least 1"),
        (["--idle-timeout", "0"], "--idle-timeout must be a number of seconds above 0"),
        (["--idle-timeout", "nan"], "--idle-timeout must be a number of seconds above 0"),
        (["--idle-timeout", "1e10"], "--idle-timeout must be a number of seconds above 0"),
        (["--request-body-timeout=-2"], "--request-body-timeout must be a number of seconds above 0"),
        (["--request-body-timeout", "inf"], "--request-body-timeout must be a number of seconds above 0"),
        (["--max-tracked-paths=-1"], "--max-tracked-paths must not be negative"),
        (["--max-connections", "many"], "--max-connections"),
    ])
    func anInvalidLimitExitsWith64AndSaysWhy(arguments: [String], explanation: String) async throws {
        let result = try await ExecutableRunner.run("mock-backend", ["--port", "0"] + arguments)

        #expect(!result.timedOut)
        #expect(result.status == 64)
        #expect(result.stdout.isEmpty)
        #expect(result.stderrText.contains(explanation), "stderr:\n\(result.stderrText)")
    }

    @Test func theLargestBodySizeAndTheShortestTimeoutsAreAccepted() throws {
        let command = try MockBackendCommand.parse([
            "--max-request-body-size", "1073741824", "--idle-timeout", "0.000000001", "--request-body-timeout", "1e-9",
        ])

        #expect(command.limits.maxRequestBodySize == LoopbackServer.Limits.maximumRequestBodySize)
        #expect(command.limits.idleTimeout >= LoopbackServer.Limits.minimumTimeout)
        #expect(command.limits.requestBodyTimeout >= LoopbackServer.Limits.minimumTimeout)
    }

    @Test func helpListsTheLimitsWithTheirDefaults() async throws {
        let result = try await ExecutableRunner.run("mock-backend", ["--help"])

        #expect(result.status == 0)
        for option in [
            "--max-request-body-size <bytes>", "--max-queued-requests <n>", "--max-connections <n>",
            "--idle-timeout <seconds>", "--request-body-timeout <seconds>", "--max-tracked-paths <n>",
        ] {
            #expect(result.stdoutText.contains(option), "\(option)")
        }
        #expect(result.stdoutText.contains("(default: 8388608)"))
        #expect(result.stdoutText.contains("mock-backend --max-connections 200 --idle-timeout 10"))
    }

    @Test func aTakenPortIsReportedInPlainWords() async throws {
        let taken = try await LoopbackServer.start(routes: [])
        let result = try await ExecutableRunner.run("mock-backend", ["--port", "\(taken.port)"])
        try await taken.shutdown()

        #expect(result.status == 1)
        #expect(
            result.stderrText
                == "mock-backend: cannot listen on 127.0.0.1:\(taken.port): Address already in use (errno 98)\n")
    }

    @Test func aLimitGivenOnTheCommandLineTakesEffect() async throws {
        let backend = try await StandaloneBackend.start(arguments: ["--max-tracked-paths", "1"])
        defer { backend.stop() }

        for path in ["/v1/tasks", "/v1/profile", "/v1/profile"] {
            _ = try await ExecutableRunner.run("rebound", ["fetch", "--max-attempts", "1", backend.url + path])
        }
        let stats = try await ExecutableRunner.run("rebound", ["fetch", backend.url + "/v1/stats"])

        #expect(stats.status == 0, "\(stats.stderrText)")
        #expect(stats.stdoutText.contains(#""requestsPerRoute":{"GET /v1/tasks":1}"#))
        #expect(stats.stdoutText.contains(#""requestsToUntrackedRoutes":2"#))
    }

    /// Below 27 columns ArgumentParser stopped on an assertion (status 132): help is whole however
    /// narrow `COLUMNS` says the terminal is.
    @Test(arguments: ["0", "-9223372036854775808"])
    func helpIsWholeHoweverNarrowCOLUMNSIs(columns: String) async throws {
        let result = try await ExecutableRunner.run("mock-backend", ["--help"], environment: ["COLUMNS": columns])
        #expect(result.status == 0, "stderr:\n\(result.stderrText)")
        #expect(result.stdoutText.contains("OVERVIEW: "), "stdout:\n\(result.stdoutText)")
    }
}
