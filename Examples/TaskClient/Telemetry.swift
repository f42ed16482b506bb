import ArgumentParser
import CoreMetrics
import Prometheus
import Rebound
import ReboundPrometheus
import Tracing

#if OTel
    import ReboundOTel
#endif

/// Where the session's spans, metrics and non-fatal reports go: `--metrics-port` serves the
/// metrics to Prometheus, `--otlp-endpoint` sends all three to an OpenTelemetry collector (with
/// the package trait `OTel`), the reports as log records.
struct Telemetry {
    /// The metrics factory of the data manager; `nil` leaves the process's (a no-op).
    var metricsFactory: (any MetricsFactory)?
    /// The tracer of the data manager; `nil` leaves the process's (a no-op).
    var tracer: (any Tracer)?
    /// Where the failures a person is shown are recorded: counted in `rebound_nonfatal_total`
    /// with either option, and sent as OTLP log records with `--otlp-endpoint`; `nil` with neither.
    var reporter: NonFatalReporter?
    private var endpoint: PrometheusEndpoint?
    #if OTel
        private var export: OTLPExport?
        private var exporting: Task<Void, any Error>?
    #endif

    static func start(otlpEndpoint: String?, metricsPort: Int?) async throws -> Telemetry {
        var telemetry = Telemetry()
        var factories: [any MetricsFactory] = []
        var reportSinks: [any ReportSink] = []
        if let metricsPort {
            let registry = PrometheusCollectorRegistry()
            factories.append(PrometheusExport.makeFactory(registry: registry))
            telemetry.endpoint = try await PrometheusEndpoint.start(registry: registry, port: metricsPort)
            Console.write("Metrics for Prometheus at \(telemetry.endpoint!.url)")
        }
        if let otlpEndpoint {
            #if OTel
                let export = try OTLPExport(
                    configuration: .init(endpoint: otlpEndpoint, serviceName: "task-client", build: exampleBuild))
                factories.append(export.metricsFactory)
                reportSinks.append(OTLPReportSink(export: export))
                telemetry.tracer = export.tracer
                telemetry.export = export
                telemetry.exporting = Task { try await export.run() }
                Console.write("Traces, metrics and reports over OTLP to \(otlpEndpoint)")
            #else
                throw ValidationError(
                    "This build of task-client cannot export over OTLP: build it with the package trait OTel "
                        + "(make run-otel, or swift run --traits OTel task-client --otlp-endpoint URL).")
            #endif
        }
        telemetry.metricsFactory = factories.count > 1 ? MultiplexMetricsHandler(factories: factories) : factories.first
        if let factory = telemetry.metricsFactory {
            reportSinks.append(MetricsReportSink(factory: factory))
            telemetry.reporter = NonFatalReporter(configuration: .init(build: exampleBuild), sinks: reportSinks)
        }
        return telemetry
    }

    /// Delivers the reports, sends what is queued (within the export's timeout) and stops serving
    /// metrics.
    func stop() async {
        await reporter?.shutdown()
        #if OTel
            export?.shutdown()
            _ = await exporting?.result
        #endif
        try? await endpoint?.shutdown()
    }
}
