public import Logging

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Writes one log line per report through swift-log.
///
/// ```
/// error: non-fatal US14-LO43-AP7-NE2 build=2.4.1 (3f9c2ab) chain=UserError.connectionIssue - … - NetworkError.timeout
///        context=[screen: login, email: <redacted>] function=login() kind=occurrence
///        location=App/LoginModel.swift:42 occurrences=1 session=6F1C…
/// ```
///
/// The message is `non-fatal <short chain>`, so that log search groups lines as reports are
/// grouped. Repeat summaries and drops reports are logged at `warning`: they count what was
/// already logged once, and an alert on errors should not fire again for them.
public struct LoggingReportSink: ReportSink {
    /// Where lines go.
    public var logger: Logger
    /// The level of first occurrences.
    public var level: Logger.Level

    /// Creates a sink that logs to `logger`.
    ///
    /// - Parameters:
    ///   - logger: Where lines go.
    ///   - level: The level of first occurrences; `error` by default, because a non-fatal is an
    ///     error the app survived, not a warning about something that may go wrong.
    public init(logger: Logger, level: Logger.Level = .error) {
        self.logger = logger
        self.level = level
    }

    public func receive(_ report: NonFatalReport) async throws {
        logger.log(
            level: report.kind == .occurrence ? level : .warning,
            "non-fatal \(report.chain)",
            metadata: Self.metadata(of: report)
        )
    }

    /// The metadata of a report's line: the full chain, the redacted context, where, which build
    /// and session, and how many occurrences.
    static func metadata(of report: NonFatalReport) -> Logger.Metadata {
        [
            "chain": .string(report.fullChain),
            "context": .string(
                "[" + report.context.map { "\($0.key): \($0.value)" }.joined(separator: ", ") + "]"),
            "location": .string(report.location),
            "function": .string(report.function),
            "build": .string(report.build.description),
            "session": .string(report.session.uuidString),
            "kind": .string(report.kind.rawValue),
            "occurrences": .stringConvertible(report.occurrences),
        ]
    }
}
