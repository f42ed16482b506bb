import ArgumentParser
import Rebound

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Records reports, each with a chain of its own, and prints the number of each whose `record`
/// returned; the crash test (`ReportCrashTests`) kills it with SIGKILL and compares the file with
/// what it printed.
struct RecordReportsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "record-reports",
        abstract: "Record reports to a JSON-lines file, printing each one's number once record returned."
    )

    @Option(help: "The report file.")
    var path: String

    @Option(help: "queued or written-before-return.")
    var delivery: DeliveryOption = .queued

    @Flag(help: "Sync the file after each report.")
    var fsync = false

    @Option(help: "How many reports, at most.")
    var count = 1_000_000

    func validate() throws {
        guard count > 0 else { throw ValidationError("--count must be positive.") }
    }

    func run() async throws {
        let sink = try JSONLinesReportSink(path: path, maximumFileSize: .max, fsyncEachReport: fsync)
        let reporter = uncappedReporter(reports: count, delivery: delivery.delivery, sink: sink)
        for number in 1...count {
            reporter.record(ReliabilityProbe.numbered(number), context: ["n": "\(number)"])
            // Unbuffered, so that a number is out as soon as its record returned.
            let line = Array("\(number)\n".utf8)
            _ = line.withUnsafeBytes { write(STDOUT_FILENO, $0.baseAddress, $0.count) }
        }
        await reporter.shutdown()
    }
}

/// `--delivery`'s values.
enum DeliveryOption: String, ExpressibleByArgument, CaseIterable {
    case queued
    case writtenBeforeReturn = "written-before-return"

    var delivery: NonFatalReporter.Delivery {
        switch self {
        case .queued: .queued
        case .writtenBeforeReturn: .writtenBeforeReturn
        }
    }
}
