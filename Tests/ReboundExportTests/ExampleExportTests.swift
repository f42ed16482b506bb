#if OTel
    import Foundation
    import ReboundCurl
    import TestSupport
    import Testing

    /// The example as `make run-otel` runs it: the built `task-client` (with the trait) exporting to
    /// the OTLP receiver and serving Prometheus metrics at once.
    @Suite(.serialized) struct ExampleExportTests {
        @Test func theExampleSendsTheFailuresItShowsAsLogRecordsAndTheOverloadGauges() async throws {
            let transport = CurlTransport()
            defer { transport.shutdown() }
            let receiver = try await OTLPReceiver.start(transport: transport)
            defer { receiver.stop() }
            // The example's metrics port is held by a socket that is bound and never listens, so
            // that no other test's server is given it before the example binds it beside (both
            // sockets allow the address to be reused, and only one listens).
            let reservation = try boundLoopbackSocket()
            defer { close(reservation) }
            let metricsPort = try boundPort(of: reservation)
            // Prometheus scrapes the example's port every second; the example serves its metrics
            // 3 s past the session, so the last scrape has their final values.
            let prometheus = try await PrometheusServer.start(
                scraping: "127.0.0.1:\(metricsPort)", transport: transport)
            defer { prometheus.stop() }

            let run = try await ExampleRun.start(
                "task-client",
                [
                    "--quiet", "--otlp-endpoint", receiver.endpoint, "--metrics-port", "\(metricsPort)",
                    "--metrics-linger", "3",
                ],
                timeLimit: .seconds(120))
            #expect(!run.timedOut)
            #expect(run.status == 0, "\(run.output)")

            let items = try await receiver.items { items in
                items.filter { $0.signal == "log" }.count >= 3
                    && items.contains { $0.name == "rebound_rate_limit_tokens_per_second" }
            }
            #expect(items.filter { $0.signal == "error" }.isEmpty)

            // Steps 9, 10 and 11 end with a failure shown to the person; each is reported once.
            let reports = items.filter { $0.signal == "log" }
            let byStep = Dictionary(
                reports.map { ($0.attributes?["rebound.context.step"] ?? "", $0) }, uniquingKeysWith: { $1 })
            #expect(reports.count == 3)
            #expect(Set(byStep.keys) == ["9", "10", "12"])
            let broken = try #require(byStep["10"])
            #expect(broken.body == "non-fatal US12-IN3-AP4-JS5-DE4")
            #expect(broken.severityNumber == 17)  // ERROR
            #expect(broken.attributes?["rebound.chain"] == "US12-IN3-AP4-JS5-DE4")
            #expect(broken.attributes?["rebound.kind"] == "occurrence")
            #expect(broken.attributes?["rebound.build"] == "1.0.0 (example)")
            #expect(broken.resource?["service.name"] == "task-client")
            #expect(byStep["12"]?.attributes?["rebound.chain"] == "US4-IN2-AP3-RE50")

            // The overload handlers' gauges: the circuit, closed again by the end of the session,
            // and the rate of the bucket that limits from the first 429 on.
            let metrics = items.filter { $0.signal == "metric" }
            #expect(metrics.last { $0.name == "rebound_circuit_state" }?.value == 0)
            let rate = try #require(metrics.last { $0.name == "rebound_rate_limit_tokens_per_second" })
            #expect(rate.type == "gauge")
            #expect((rate.value ?? 0) > 0)
            #expect(rate.attributes?["key"]?.hasPrefix("127.0.0.1:") == true)
            #expect(
                metrics.contains {
                    $0.name == "rebound_nonfatal_total" && $0.attributes?["chain"] == "US4-IN2-AP3-RE50"
                })

            // Prometheus holds the same calls: the reported failure by chain, the attempts that
            // failed and were retried, the breaker's circuit closed again. Once the example is
            // gone its series are marked stale, so the queries take each one's last sample.
            let reported = try await prometheus.query(
                #"last_over_time(rebound_nonfatal_total{chain="US4-IN2-AP3-RE50"}[5m])"#)
            #expect(reported.first?.number == 1, "\(reported)")
            let failedAttempts = try await prometheus.query(
                #"sum(last_over_time(rebound_attempts_total{outcome="failure"}[5m]))"#)
            #expect((failedAttempts.first?.number ?? 0) > 0, "\(failedAttempts)")
            let recoveries = try await prometheus.query("last_over_time(rebound_recoveries_total[5m])")
            #expect(!recoveries.isEmpty)
            let circuits = try await prometheus.query("last_over_time(rebound_circuit_state[5m])")
            #expect(circuits.first?.number == 0, "\(circuits)")

            // The password of step 1 and the tokens never leave the process.
            let received = receiver.text()
            #expect(!received.contains("wonderland"))
            #expect(!received.contains("Bearer"))
        }
    }

    /// A run of one of this package's executables, found next to the test binary (the products
    /// directory of whichever scratch path built it), with its output kept in a file.
    struct ExampleRun {
        struct NotFound: Error, CustomStringConvertible { var description: String }

        var status: Int32
        var timedOut: Bool
        var output: String

        /// Runs `name` with `arguments` and standard input empty; past `timeLimit` it is terminated.
        static func start(_ name: String, _ arguments: [String], timeLimit: Duration) async throws -> ExampleRun {
            let binary = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
            let executable = binary.deletingLastPathComponent().appendingPathComponent(name)
            guard FileManager.default.isExecutableFile(atPath: executable.path) else {
                throw NotFound(description: "No \(executable.path); build the package's products first.")
            }
            let log = FileManager.default.temporaryDirectory.appendingPathComponent("rebound-\(name)-\(UUID()).log")
            _ = FileManager.default.createFile(atPath: log.path, contents: nil)
            defer { try? FileManager.default.removeItem(at: log) }
            let output = try FileHandle(forWritingTo: log)
            defer { try? output.close() }

            let process = try ChildProcess(
                executable: executable.path, arguments: arguments, standardOutput: .file(output),
                standardError: .file(output))
            let deadline = ContinuousClock.now + timeLimit
            while process.isRunning && ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(100))
            }
            let timedOut = process.isRunning
            if timedOut { process.signal(SIGTERM) }
            let termination = await onOwnThread { process.waitUntilExit() }
            let text = FileManager.default.contents(atPath: log.path).map { String(decoding: $0, as: UTF8.self) }
            return ExampleRun(status: termination.status, timedOut: timedOut, output: text ?? "")
        }
    }
#endif
