#if OTel
    #if canImport(FoundationEssentials)
        import FoundationEssentials
    #else
        import Foundation
    #endif
    import Logging
    public import Rebound

    /// Sends each non-fatal report as an OTLP log record, through an ``OTLPExport``.
    ///
    /// The record's body is `non-fatal <short chain>`, its severity `ERROR` for a first occurrence and
    /// `WARN` for repeat summaries and drops reports (as ``LoggingReportSink`` logs them), its
    /// `code.*` attributes the place that recorded the error, and it joins the recorder's trace when
    /// there was one. Its other attributes:
    ///
    /// | attribute | value |
    /// |---|---|
    /// | `rebound.chain` | the short chain |
    /// | `rebound.chain.full` | the full chain |
    /// | `rebound.kind` | `occurrence`, `repeats` or `drops` |
    /// | `rebound.occurrences` | the occurrences the report stands for |
    /// | `rebound.context.<key>` | each context entry, sensitive values redacted |
    /// | `rebound.build` | the build, such as `2.4.1 (3f9c2ab)` |
    /// | `rebound.session` | the session |
    ///
    /// The record is queued, never sent on the reporter's time: see ``OTLPExport`` for the bounds.
    public struct OTLPReportSink: ReportSink {
        /// The label of the sink's logger.
        static let loggerLabel = "rebound.nonfatal"

        private let logger: Logger

        /// Creates a sink that sends through `export`.
        ///
        /// - Parameter export: The running export.
        public init(export: OTLPExport) {
            logger = Logger(label: Self.loggerLabel, factory: export.logHandlerFactory)
        }

        public func receive(_ report: NonFatalReport) async throws {
            logger.log(
                level: report.kind == .occurrence ? .error : .warning,
                "non-fatal \(report.chain)",
                metadata: Self.attributes(of: report),
                file: report.file,
                function: report.function,
                line: UInt(clamping: report.line)
            )
        }

        /// The attributes of a report's record, besides the `code.*` ones.
        static func attributes(of report: NonFatalReport) -> Logger.Metadata {
            var attributes: Logger.Metadata = [
                "rebound.chain": .string(report.chain),
                "rebound.chain.full": .string(report.fullChain),
                "rebound.kind": .string(report.kind.rawValue),
                "rebound.occurrences": .stringConvertible(report.occurrences),
                "rebound.build": .string(report.build.description),
                "rebound.session": .string(report.session.uuidString),
            ]
            for entry in report.context {
                attributes["rebound.context.\(entry.key)"] = .string(entry.value)
            }
            return attributes
        }
    }
#endif
