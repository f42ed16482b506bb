import ArgumentParser
import Rebound
import ReboundReportAnalysis
#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// `rebound report`: what non-fatal report files say, as a bar chart or as JSON.
///
/// Reads the files a ``JSONLinesReportSink`` writes with ``JSONLinesReportReader`` (invalid lines,
/// such as a line torn by a crash, are skipped and counted on stderr) and prints a
/// ``ReportAnalysis``: the top chains by occurrences and by sessions, the builds, and, with
/// `--baseline`, the chains that are new, regressed or growing.
struct ReportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "report",
        abstract: "Summarise non-fatal report files: top chains, builds, and new, regressed or growing chains.",
        discussion: """
            Each FILE is a JSON-lines file of non-fatal reports, as Rebound's JSONLinesReportSink \
            writes it. Occurrences include the repeats the reporters counted; sessions are the \
            distinct sessions that reported a chain. Lines that are not reports (a line torn by a \
            crash) are skipped and counted on stderr.

            With --baseline (earlier files: last week's, the previous release's), a chain is new if \
            the baseline never reported it; regressed if the baseline reported it, but not in its \
            last build (the build of its most recent report), and it is back; growing if it occurred \
            at least 10 times and its occurrences per session at least doubled.

            Examples:
              rebound report nonfatal.jsonl
              rebound report this-week/*.jsonl --baseline last-week/*.jsonl --top 5
              rebound report --json nonfatal.jsonl

            Exit status: 0 success, 64 invalid arguments, 66 a file cannot be read.
            """
    )

    /// The exit status when a file cannot be read: `EX_NOINPUT` of sysexits.h, as 64 is its `EX_USAGE`.
    static let unreadableFileStatus: Int32 = 66

    /// The most chains a top list may show: more is no longer a summary.
    static let topRange = 1...1_000

    @Argument(help: ArgumentHelp("JSON-lines report files.", valueName: "file"))
    var files: [String]

    @Option(
        parsing: .upToNextOption,
        help: ArgumentHelp("Earlier report files to compare with (put them after the files).", valueName: "file"))
    var baseline: [String] = []

    @Option(help: ArgumentHelp("How many chains the top lists show (1–1000).", valueName: "n"))
    var top = 10

    @Flag(help: "Print one JSON object on stdout instead of the charts.")
    var json = false

    func validate() throws {
        guard !files.isEmpty else { throw ValidationError("Give at least one report file.") }
        guard Self.topRange.contains(top) else {
            throw ValidationError("--top must be from 1 to \(Self.topRange.upperBound) (got \(top)).")
        }
    }

    func run() throws {
        let current = try Self.read(files)
        let previous = baseline.isEmpty ? nil : try Self.read(baseline)
        let analysis = ReportAnalysis(
            reports: current.reports,
            baseline: previous?.reports,
            options: ReportAnalysis.Options(top: top)
        )
        Self.warn(
            about: current.invalidLines + (previous?.invalidLines ?? []),
            count: current.invalidLineCount + (previous?.invalidLineCount ?? 0))
        if json {
            let output = ReportCommandOutput(
                input: .init(
                    files: files,
                    reports: current.reports.count,
                    invalidLines: current.invalidLines.map(\.description),
                    invalidLineCount: current.invalidLineCount,
                    baselineFiles: baseline,
                    baselineReports: previous?.reports.count ?? 0,
                    baselineInvalidLines: previous?.invalidLines.map(\.description) ?? [],
                    baselineInvalidLineCount: previous?.invalidLineCount ?? 0
                ),
                analysis: analysis
            )
            StandardStreams.writeOutput(try JSONOutput.line(output))
        } else {
            StandardStreams.writeOutput(Data(analysis.renderedText().utf8))
        }
    }

    /// Reads `paths`, or exits with 66 and the reason on stderr.
    private static func read(_ paths: [String]) throws -> JSONLinesReportReader.Contents {
        do {
            return try JSONLinesReportReader().read(paths: paths)
        } catch {
            let path = error.context["path"]?.revealed ?? "a file"
            let reason = error.reason ?? error.cause.map { Self.reason(of: $0) } ?? "unknown reason"
            StandardStreams.writeError("error: cannot read \(path): \(reason) [\(error.chain.short)]")
            throw ExitCode(unreadableFileStatus)
        }
    }

    private static func reason(of error: any Error) -> String {
        let link = ErrorChain.Link(error)
        return link.reason ?? link.full
    }

    /// Says on stderr how many lines were not reports, and which the first ten are.
    ///
    /// - Parameters:
    ///   - invalidLines: The listed ones (the reader lists only the first of each read).
    ///   - count: How many there were, listed or not.
    private static func warn(about invalidLines: [JSONLinesReportReader.InvalidLine], count: Int) {
        guard count > 0 else { return }
        let shown = invalidLines.prefix(10).map(\.description).joined(separator: ", ")
        let more = count > min(10, invalidLines.count) ? ", …" : ""
        StandardStreams.writeError("warning: skipped \(count) line(s) that are not reports: \(shown)\(more)")
    }
}

/// `rebound report --json`: the input that was read, and the analysis.
struct ReportCommandOutput: Encodable {
    struct Input: Encodable {
        var files: [String]
        var reports: Int
        /// `path:line` of the first lines that were not reports, at most
        /// ``JSONLinesReportReader/maximumListedInvalidLines``.
        var invalidLines: [String]
        /// How many lines were not reports, listed or not.
        var invalidLineCount: Int
        var baselineFiles: [String]
        var baselineReports: Int
        /// As ``invalidLines``, for the baseline's files.
        var baselineInvalidLines: [String]
        /// As ``invalidLineCount``, for the baseline's files.
        var baselineInvalidLineCount: Int
    }

    var input: Input
    var analysis: ReportAnalysis
}
