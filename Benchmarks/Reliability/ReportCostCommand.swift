import ArgumentParser
import Foundation
import Rebound

/// What one report costs in each delivery mode, to a JSON-lines file on the disk of `--directory`.
///
/// Each run records `--reports` reports of distinct chains (made beforehand) and times two things:
/// the recording loop alone, what the recording code waits, and the loop plus the `flush()` after
/// it, which waits until the delivery task wrote every queued report and synced the file once.
/// The modes take turns in each round; the table shows each one's median over the rounds.
struct ReportCostCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "report-cost",
        abstract: "Measure what a report costs in each delivery mode (build with -c release)."
    )

    @Option(help: "Reports per run.")
    var reports = 5_000

    @Option(help: "Rounds; each runs every mode once.")
    var rounds = 5

    @Option(help: "Where the report files go (they are removed); its disk is what fsync waits for.")
    var directory = FileManager.default.temporaryDirectory.path

    func validate() throws {
        guard reports > 0, rounds > 0 else { throw ValidationError("--reports and --rounds must be positive.") }
    }

    /// One way of writing reports.
    struct Mode {
        var name: String
        var delivery: NonFatalReporter.Delivery
        var fsyncEachReport: Bool
    }

    static let modes = [
        Mode(name: "queued", delivery: .queued, fsyncEachReport: false),
        Mode(name: "queued, fsync each report", delivery: .queued, fsyncEachReport: true),
        Mode(name: "written before return", delivery: .writtenBeforeReturn, fsyncEachReport: false),
        Mode(name: "written before return, fsync each report", delivery: .writtenBeforeReturn, fsyncEachReport: true),
    ]

    func run() async throws {
        let errors = (1...reports).map { ReliabilityProbe.numbered($0) }
        let contexts: [ErrorContext] = (1...reports).map { ["n": "\($0)"] }
        var recordTimes = Array(repeating: [Duration](), count: Self.modes.count)
        var flushedTimes = recordTimes
        for round in 1...rounds {
            for (index, mode) in Self.modes.enumerated() {
                let path =
                    "\(directory)/reliability-report-cost-\(ProcessInfo.processInfo.processIdentifier)-\(round).jsonl"
                defer { try? FileManager.default.removeItem(atPath: path) }
                let sink = try JSONLinesReportSink(
                    path: path, maximumFileSize: .max, fsyncEachReport: mode.fsyncEachReport)
                let reporter = uncappedReporter(reports: reports, delivery: mode.delivery, sink: sink)
                let clock = ContinuousClock()
                let start = clock.now
                for (error, context) in zip(errors, contexts) { reporter.record(error, context: context) }
                let recorded = clock.now
                await reporter.flush()
                let flushed = clock.now
                await reporter.shutdown()
                let lines = try Data(contentsOf: URL(fileURLWithPath: path)).count(where: { $0 == UInt8(ascii: "\n") })
                guard lines == reports, reporter.statistics.sinkFailures == 0 else {
                    throw ValidationError("\(mode.name): \(lines) lines of \(reports), \(reporter.statistics)")
                }
                recordTimes[index].append(recorded - start)
                flushedTimes[index].append(flushed - start)
            }
        }
        print("\(reports) reports per run, median of \(rounds) rounds, files in \(directory)")
        print("| mode | record returns (µs per report) | written and synced at flush() (µs per report) |")
        print("|---|---|---|")
        for (index, mode) in Self.modes.enumerated() {
            let record = Self.microseconds(median(recordTimes[index]), per: reports)
            let flushed = Self.microseconds(median(flushedTimes[index]), per: reports)
            print("| \(mode.name) | \(record) | \(flushed) |")
        }
    }

    private func median(_ durations: [Duration]) -> Duration {
        durations.sorted()[durations.count / 2]
    }

    private static func microseconds(_ duration: Duration, per count: Int) -> String {
        let seconds = Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
        return String(format: "%.2f", seconds * 1e6 / Double(count))
    }
}
