#if OTel
    import CoreMetrics
    import Prometheus
    import Rebound
    import ReboundCurl
    import ReboundMockBackend
    import ReboundPrometheus
    import Testing
    import Tracing

    /// ReboundPrometheus scraped by Prometheus itself (Debian's `prometheus`, started on loopback by
    /// the test): the request-duration histogram with the conventions' buckets, the chain counter,
    /// the circuit breaker's state gauge, and no secret in any label.
    ///
    /// It lives in the `OTel` build with the OTLP tests, so that `make test` starts these peers once,
    /// not once per sanitizer run.
    @Suite(.serialized) struct PrometheusExportTests {
        @Test func prometheusScrapesTheRequestDurationHistogramAndTheChainCounter() async throws {
            let transport = CurlTransport()
            defer { transport.shutdown() }
            let registry = PrometheusCollectorRegistry()
            let factory = PrometheusExport.makeFactory(registry: registry)
            let endpoint = try await PrometheusEndpoint.start(registry: registry, port: 0)
            let prometheus = try await PrometheusServer.start(
                scraping: "127.0.0.1:\(endpoint.port)", transport: transport)
            defer { prometheus.stop() }
            let scenario = try await Scenario.start(transport: transport, metricsFactory: factory, tracer: NoOpTracer())
            let reporter = NonFatalReporter(configuration: .init(build: Scenario.build), sinks: [])

            let chain = try await scenario.run(reporter: reporter)
            await reporter.shutdown()
            scenario.breaker.isolate("payments")

            let failures = try await prometheus.query(#"rebound_failures_total{job="rebound"}"#) { !$0.isEmpty }
            #expect(failures.map { $0.metric["chain"] } == [chain])
            #expect(failures.first?.number == 1)
            let attempts = try await prometheus.query("rebound_attempts_total") { $0.count == 2 }
            #expect(attempts.first { $0.metric["outcome"] == "success" }?.number == 2)
            #expect(attempts.first { $0.metric["outcome"] == "failure" }?.number == Double(Scenario.maxAttempts))
            // The pipeline's histogram: one series per attribute set, every attempt counted once.
            let attemptsSent = Double(2 + Scenario.maxAttempts)
            let buckets = try await prometheus.query("http_client_request_duration_seconds_bucket") { series in
                series.filter { $0.metric["le"] == "+Inf" }.reduce(0) { $0 + ($1.number ?? 0) } == attemptsSent
            }
            let bounds = Set(buckets.compactMap { $0.metric["le"] })
            #expect(bounds == Set(PrometheusExport.requestDurationBuckets.map { "\($0)" } + ["+Inf"]))
            #expect(buckets.allSatisfy { $0.metric["http_request_method"] == "GET" })
            let everyAttempt = buckets.filter { $0.metric["le"] == "+Inf" }
            #expect(everyAttempt.reduce(0) { $0 + ($1.number ?? 0) } == attemptsSent)
            #expect(
                everyAttempt.first { $0.metric["http_response_status_code"] == "503" }?.number
                    == Double(Scenario.maxAttempts))

            // The breaker's gauge: the backend's circuit closed (0), the one isolated by hand 3.
            let circuits = try await prometheus.query("rebound_circuit_state") { $0.count == 2 }
            #expect(circuits.first { $0.metric["key"] == "payments" }?.number == 3)
            #expect(circuits.first { $0.metric["key"] == scenario.backend.authority }?.number == 0)

            let scraped = try #require(await get(endpoint.url, transport: transport))
            for secret in Scenario.secrets {
                #expect(!scraped.body.contains(secret), "a secret reached Prometheus: \(secret)")
            }
            try await scenario.stop()
            try await endpoint.shutdown()
        }

        @Test func theEndpointServesOnlyMetrics() async throws {
            let transport = CurlTransport()
            defer { transport.shutdown() }
            let registry = PrometheusCollectorRegistry()
            Counter(
                label: "rebound_failures_total", dimensions: [("chain", "EX4")],
                factory: PrometheusExport.makeFactory(registry: registry)
            )
            .increment()
            let endpoint = try await PrometheusEndpoint.start(registry: registry, port: 0)
            let metrics = try #require(await get(endpoint.url, transport: transport))
            #expect(metrics.status == 200)
            #expect(metrics.body.contains(#"rebound_failures_total{chain="EX4"} 1"#))
            let elsewhere = try #require(await get("http://127.0.0.1:\(endpoint.port)/", transport: transport))
            #expect(elsewhere.status == 404)
            try await endpoint.shutdown()
        }
    }
#endif
