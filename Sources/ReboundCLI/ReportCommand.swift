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
            writes it; - reads standard input, a directory its *.jsonl files (and its \
            subdirectories'), and a quoted glob pattern the files it matches. Files of any size \
            are read as streams and merged. Occurrences include the repeats the reporters counted; \
            sessions are the distinct sessions that reported a chain. When the reports come from \
            more than one host, they are also grouped by host, and by build on each host. Lines \
            that are not reports (a line torn by a crash, one over 1 MiB) are skipped and counted \
            on stderr. On a terminal, a progress line on stderr shows how far reading has come.

            With --baseline (earlier files: last week's, the previous release's), a chain is new if \
            the baseline never reported it; regressed if the baseline reported it, but not in its \
            last build (the build of its most recent report), and it is back; growing if it occurred \
            at least 10 times and its occurrences per session at least doubled.

            Examples:
              rebound report nonfatal.jsonl
              rebound report this-week/ --baseline 'last-week/*.jsonl' --top 5
              zcat old.jsonl.gz | rebound report --json -

            Exit status: 0 success, 64 invalid arguments, 66 a file cannot be read.
            """
    )

    /// The exit status when a file cannot be read: `EX_NOINPUT` of sysexits.h, as 64 is its `EX_USAGE`.
    static let unreadableFileStatus: Int32 = 66

    /// The most chains a top list may show: more is no longer a summary.
    static let topRange = 1...1_000

    @Argument(
        help: ArgumentHelp(
            "JSON-lines report files, directories, glob patterns, or - for standard input.", valueName: "file"))
    var files: [String]

    @Option(
        parsing: .upToNextOption,
        help: ArgumentHelp(
            "Earlier report files (or directories, patterns) to compare with (put them after the files).",
            valueName: "file"))
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
        var current = ReportTally()
        let currentSummary = try Self.read(files, into: &current)
        var previous: ReportTally?
        var baselineSummary: JSONLinesReportReader.Summary?
        if !baseline.isEmpty {
            var tally = ReportTally()
            baselineSummary = try Self.read(baseline, into: &tally)
            previous = tally
        }
        let analysis = ReportAnalysis(tally: current, baseline: previous, options: ReportAnalysis.Options(top: top))
        Self.warn(about: [currentSummary] + (baselineSummary.map { [$0] } ?? []))
        if json {
            let output = ReportCommandOutput(
                input: .init(
                    files: files,
                    reports: currentSummary.reports,
                    invalidLines: currentSummary.invalidLines.map(\.description),
                    invalidLineCount: currentSummary.invalidLineCount,
                    baselineFiles: baseline,
                    baselineReports: baselineSummary?.reports ?? 0,
                    baselineInvalidLines: baselineSummary?.invalidLines.map(\.description) ?? [],
                    baselineInvalidLineCount: baselineSummary?.invalidLineCount ?? 0,
                    readFiles: currentSummary.files == files ? nil : currentSummary.files,
                    baselineReadFiles: baselineSummary.flatMap { $0.files == baseline ? nil : $0.files },
                    overlongLineCount: currentSummary.overlongLineCount > 0 ? currentSummary.overlongLineCount : nil,
                    baselineOverlongLineCount: baselineSummary.flatMap {
                        $0.overlongLineCount > 0 ? $0.overlongLineCount : nil
                    }
                ),
                analysis: analysis
            )
            StandardStreams.writeOutput(try JSONOutput.line(output))
        } else {
            StandardStreams.writeOutput(Data(analysis.renderedText().utf8))
        }
    }

    /// Reads `arguments` into `tally`, with a progress line on a terminal, or exits with 66 and
    /// the reason on stderr.
    private static func read(_ arguments: [String], into tally: inout ReportTally) throws
        -> JSONLinesReportReader.Summary
    {
        let progress = ProgressLine()
        defer { progress.finish() }
        do {
            return try JSONLinesReportReader().read(arguments, into: &tally, progress: progress.show)
        } catch {
            progress.finish()
            let path = error.context["path"]?.revealed ?? "a file"
            let reason = error.reason ?? error.cause.map { Self.reason(of: $0) } ?? "unknown reason"
            // A file's name is anyone's choice in a fleet's directory: no control character of it
            // reaches the terminal.
            StandardStreams.writeError(
                "error: cannot read \(path.escapingControlCharacters): \(reason) [\(error.chain.short)]")
            throw ExitCode(unreadableFileStatus)
        }
    }

    private static func reason(of error: any Error) -> String {
        let link = ErrorChain.Link(error)
        return link.reason ?? link.full
    }

    /// Says on stderr how many lines were not reports, how many of them were over-long, and which
    /// the first ten are.
    ///
    /// - Parameter summaries: What each read found (the reader lists only the first invalid lines
    ///   of each).
    private static func warn(about summaries: [JSONLinesReportReader.Summary]) {
        let invalidLines = summaries.flatMap(\.invalidLines)
        let count = summaries.reduce(0) { $0 + $1.invalidLineCount }
        guard count > 0 else { return }
        let shown = invalidLines.prefix(10).map { "\($0.path.escapingControlCharacters):\($0.line)" }
            .joined(separator: ", ")
        let more = count > min(10, invalidLines.count) ? ", …" : ""
        let overlong = summaries.reduce(0) { $0 + $1.overlongLineCount }
        let longer =
            overlong > 0 ? " (\(overlong) longer than \(JSONLinesReportReader().maximumLineLength) bytes)" : ""
        StandardStreams.writeError(
            "warning: skipped \(count) line(s) that are not reports\(longer): \(shown)\(more)")
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
        /// The files read, when directories or patterns made them differ from ``files``.
        var readFiles: [String]?
        /// As ``readFiles``, for the baseline.
        var baselineReadFiles: [String]?
        /// How many of the invalid lines were longer than the reader's limit, when any were.
        var overlongLineCount: Int?
        /// As ``overlongLineCount``, for the baseline.
        var baselineOverlongLineCount: Int?
    }

    var input: Input
    var analysis: ReportAnalysis
}
