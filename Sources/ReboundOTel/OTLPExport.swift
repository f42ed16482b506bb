#if OTel
    public import CoreMetrics
    public import Logging
    import OTel
    public import Rebound
    public import ServiceLifecycle
    public import Tracing

    /// Sends a process's spans, metrics and logs to an OpenTelemetry collector over OTLP/HTTP with
    /// protobuf, through swift-otel.
    ///
    /// It builds the three backends and the service that exports in the background; the app gives the
    /// tracer and the metrics factory to its data managers (or bootstraps the process's systems with
    /// them), logs through ``logHandlerFactory``, and runs the export until it shuts down:
    ///
    /// ```swift
    /// let export = try OTLPExport(configuration: .init(endpoint: "http://127.0.0.1:4318", serviceName: "tasks"))
    /// InstrumentationSystem.bootstrap(export.tracer)
    /// MetricsSystem.bootstrap(export.metricsFactory)
    /// let exporting = Task { try await export.run() }
    /// // … the app's work …
    /// export.shutdown()           // flushes what is queued, within the timeout
    /// try await exporting.value
    /// ```
    ///
    /// Signals go to `/v1/traces`, `/v1/metrics` and `/v1/logs` under the endpoint. Nothing a call does
    /// waits for the collector: a finished span or a log record is queued (at most
    /// ``Configuration/maximumQueuedSpans`` and ``Configuration/maximumQueuedLogRecords``; beyond them it
    /// is dropped), batches leave every ``Configuration/scheduleDelay``, metrics every
    /// ``Configuration/metricsInterval``, and an export that fails or outlives ``Configuration/timeout``
    /// is given up. swift-otel counts what it drops and logs the count, and each failed export, as a
    /// warning on ``Configuration/diagnosticLogger``. The usual `OTEL_*` environment variables
    /// (`OTEL_EXPORTER_OTLP_HEADERS`, `OTEL_SERVICE_NAME`, …) override the configuration.
    ///
    /// Available with the package trait `OTel` only: swift-otel takes minutes to build.
    public final class OTLPExport: Service, Sendable {
        /// Where and how to export.
        public struct Configuration: Sendable {
            /// The collector's base URL, such as `http://127.0.0.1:4318`: an `http` or `https` URL with
            /// a host, without a query.
            public var endpoint: String
            /// The `service.name` resource attribute.
            public var serviceName: String
            /// The build, as the `service.version` resource attribute; none by default.
            public var build: BuildIdentity?
            /// Header fields sent with every export, such as a collector's API key. They go to the
            /// collector only, never into telemetry.
            public var headers: [(String, String)]
            /// The most finished spans waiting for export; later ones are dropped. 2048 by default.
            public var maximumQueuedSpans: Int
            /// The most log records waiting for export; later ones are dropped. 2048 by default.
            public var maximumQueuedLogRecords: Int
            /// The most spans or log records in one export. 512 by default.
            public var maximumBatchSize: Int
            /// How long spans and log records wait before they are exported. 1 second by default.
            public var scheduleDelay: Duration
            /// How often metrics are exported. 10 seconds by default.
            public var metricsInterval: Duration
            /// How long one export may take, retries included. 5 seconds by default.
            public var timeout: Duration
            /// Where swift-otel writes its own warnings: dropped spans or records, failed exports.
            public var diagnosticLogger: Logger

            /// A configuration with the defaults given for each property.
            public init(
                endpoint: String,
                serviceName: String,
                build: BuildIdentity? = nil,
                headers: [(String, String)] = [],
                maximumQueuedSpans: Int = 2048,
                maximumQueuedLogRecords: Int = 2048,
                maximumBatchSize: Int = 512,
                scheduleDelay: Duration = .seconds(1),
                metricsInterval: Duration = .seconds(10),
                timeout: Duration = .seconds(5),
                diagnosticLogger: Logger = Logger(label: "rebound.otel")
            ) {
                self.endpoint = endpoint
                self.serviceName = serviceName
                self.build = build
                self.headers = headers
                self.maximumQueuedSpans = maximumQueuedSpans
                self.maximumQueuedLogRecords = maximumQueuedLogRecords
                self.maximumBatchSize = maximumBatchSize
                self.scheduleDelay = scheduleDelay
                self.metricsInterval = metricsInterval
                self.timeout = timeout
                self.diagnosticLogger = diagnosticLogger
            }
        }

        /// A configuration that no export can follow.
        public struct ConfigurationError: Error, Hashable, CustomStringConvertible {
            /// What is wrong, such as `the endpoint must be an http or https URL with a host`.
            public var description: String
        }

        /// The bucket boundaries of duration histograms, in seconds: those OpenTelemetry's HTTP-client
        /// conventions advise for `http.client.request.duration` (`TelemetryBuckets`).
        public static let durationBuckets = TelemetryBuckets.requestDurationSeconds

        /// The tracer whose spans are exported.
        public let tracer: any Tracer
        /// The metrics factory whose metrics are exported. Timers become histograms in seconds with
        /// ``durationBuckets``.
        public let metricsFactory: any MetricsFactory
        /// Makes swift-log handlers whose records are exported, with their metadata as attributes.
        public let logHandlerFactory: @Sendable (String) -> any LogHandler

        private let group: ServiceGroup

        /// Builds the backends; nothing is sent until ``run()``.
        ///
        /// - Parameter configuration: Where and how to export.
        /// - Throws: ``ConfigurationError`` when the endpoint is not an http(s) URL with a host, or a
        ///   bound is below 1, or swift-otel refuses the configuration.
        public init(configuration: Configuration) throws(ConfigurationError) {
            let endpoint = try Self.validate(configuration)
            var otel = OTel.Configuration.default
            otel.serviceName = configuration.serviceName
            if let build = configuration.build { otel.resourceAttributes["service.version"] = build.description }
            otel.diagnosticLogger = .custom(configuration.diagnosticLogger)
            otel.diagnosticLogLevel = .warning
            var exporter = otel.traces.otlpExporter
            exporter.headers = configuration.headers
            exporter.timeout = configuration.timeout
            exporter.compression = .none
            // Set explicitly, an endpoint is used as it is: each signal gets its path here.
            otel.traces.otlpExporter = exporter
            otel.traces.otlpExporter.endpoint = endpoint + "/v1/traces"
            otel.metrics.otlpExporter = exporter
            otel.metrics.otlpExporter.endpoint = endpoint + "/v1/metrics"
            otel.logs.otlpExporter = exporter
            otel.logs.otlpExporter.endpoint = endpoint + "/v1/logs"
            otel.traces.batchSpanProcessor.scheduleDelay = configuration.scheduleDelay
            otel.traces.batchSpanProcessor.exportTimeout = configuration.timeout
            otel.traces.batchSpanProcessor.maxQueueSize = configuration.maximumQueuedSpans
            otel.traces.batchSpanProcessor.maxExportBatchSize = min(
                configuration.maximumBatchSize, configuration.maximumQueuedSpans)
            otel.logs.batchLogRecordProcessor.scheduleDelay = configuration.scheduleDelay
            otel.logs.batchLogRecordProcessor.exportTimeout = configuration.timeout
            otel.logs.batchLogRecordProcessor.maxQueueSize = configuration.maximumQueuedLogRecords
            otel.logs.batchLogRecordProcessor.maxExportBatchSize = min(
                configuration.maximumBatchSize, configuration.maximumQueuedLogRecords)
            otel.logs.level = .trace
            otel.metrics.exportInterval = configuration.metricsInterval
            otel.metrics.exportTimeout = configuration.timeout
            let buckets = Self.durationBuckets.map { Duration.nanoseconds(Int64(($0 * 1e9).rounded())) }
            otel.metrics.defaultDurationHistogramBuckets = buckets
            otel.metrics.valueHistogramBuckets["http.client.request.duration"] = Self.durationBuckets
            do {
                let traces = try OTel.makeTracingBackend(configuration: otel)
                let metrics = try OTel.makeMetricsBackend(configuration: otel)
                let logs = try OTel.makeLoggingBackend(configuration: otel)
                tracer = traces.factory
                metricsFactory = metrics.factory
                logHandlerFactory = logs.factory
                group = ServiceGroup(
                    services: [traces.service, metrics.service, logs.service],
                    logger: configuration.diagnosticLogger
                )
            } catch {
                throw ConfigurationError(description: "swift-otel refused the configuration: \(error)")
            }
        }

        /// Exports until ``shutdown()``, then sends what is still queued (within
        /// ``Configuration/timeout``) and returns. Call it once.
        ///
        /// - Throws: An error from swift-otel's services; a failed export is only logged.
        public func run() async throws {
            try await group.run()
        }

        /// Asks ``run()`` to send what is queued and return.
        public func shutdown() {
            Task { await group.triggerGracefulShutdown() }
        }

        /// The endpoint without a final `/`, or the reason it cannot be used.
        private static func validate(_ configuration: Configuration) throws(ConfigurationError) -> String {
            let bounds = [
                ("maximumQueuedSpans", configuration.maximumQueuedSpans),
                ("maximumQueuedLogRecords", configuration.maximumQueuedLogRecords),
                ("maximumBatchSize", configuration.maximumBatchSize),
            ]
            for (name, value) in bounds where value < 1 {
                throw ConfigurationError(description: "\(name) is \(value); it must be at least 1")
            }
            for (name, value) in [("scheduleDelay", configuration.scheduleDelay), ("timeout", configuration.timeout)]
            where value <= .zero {
                throw ConfigurationError(description: "\(name) must be positive")
            }
            guard configuration.metricsInterval > .zero else {
                throw ConfigurationError(description: "metricsInterval must be positive")
            }
            return try OTLPEndpoint.base(configuration.endpoint)
        }
    }
#endif
