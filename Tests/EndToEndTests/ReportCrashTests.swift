import Foundation
import Rebound
import ReboundReportAnalysis
import TestSupport
import Testing

/// A process killed with SIGKILL while it records reports: what its report file keeps.
///
/// The child (`reliability record-reports`) records reports of distinct chains in a loop and,
/// after each `record` returns, prints the report's number with one unbuffered `write(2)`. The
/// test reads those numbers, kills the child in the middle of the loop, and reads the file.
@Suite struct ReportCrashTests {
    /// How many numbers the test waits for before it kills the child.
    static let reportsBeforeTheKill = 300

    @Test(arguments: [
        (delivery: "written-before-return", fsync: false),
        (delivery: "written-before-return", fsync: true),
    ])
    func writtenBeforeReturnEveryReportWhoseRecordReturnedSurvivesSIGKILL(delivery: String, fsync: Bool) async throws {
        let run = try await recordUntilKilled(delivery: delivery, fsync: fsync)
        #expect(run.printed.count >= Self.reportsBeforeTheKill)
        let missing = Set(run.printed).subtracting(run.numbersInTheFile)
        #expect(
            missing.isEmpty,
            "\(missing.count) reports whose record returned are not in the file, such as \(missing.sorted().prefix(10))"
        )
    }

    @Test func queuedEveryLineInTheFileIsWholeAfterSIGKILL() async throws {
        // Queued reports still waiting die with the process: only the lines are checked.
        let run = try await recordUntilKilled(delivery: "queued", fsync: false)
        #expect(run.printed.count >= Self.reportsBeforeTheKill)
    }

    /// What a killed child printed and left in its file.
    struct KilledRun {
        /// The numbers of the reports whose `record` returned.
        var printed: [Int]
        /// The numbers of the reports in the file.
        var numbersInTheFile: Set<Int>
    }

    /// Runs the child until it printed ``reportsBeforeTheKill`` numbers, kills it with SIGKILL,
    /// and checks that it died of the signal and that every line of its file is a whole report.
    ///
    /// A write that the kill cuts short would leave a torn last line without its newline, which
    /// the next sink to open the file seals: allowed, as the last bytes only, and its report's
    /// `record` never returned.
    func recordUntilKilled(delivery: String, fsync: Bool) async throws -> KilledRun {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "rebound-report-crash-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("reports.jsonl").path

        let child = try ChildProcess(
            executable: try ExecutableRunner.executable("reliability").path,
            arguments: ["record-reports", "--path", path, "--delivery", delivery] + (fsync ? ["--fsync"] : []),
            standardOutput: .pipe)

        // A child that prints nothing for a minute is killed all the same, so the reads below end.
        let reaped = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            if reaped.wait(timeout: .now() + .seconds(60)) == .timedOut { child.signal(SIGKILL) }
        }
        let (output, termination) = await onOwnThread { () -> (Data, ChildProcess.Termination) in
            let reading = child.standardOutput!
            var output = Data()
            // Reads until enough numbers are out (or the child ended), then kills it.
            while output.count(where: { $0 == UInt8(ascii: "\n") }) < Self.reportsBeforeTheKill {
                let chunk = reading.availableData
                if chunk.isEmpty { break }
                output.append(chunk)
            }
            child.signal(SIGKILL)
            output.append(reading.readDataToEndOfFile())
            let termination = child.waitUntilExit()
            reaped.signal()
            return (output, termination)
        }
        #expect(termination == .signal(SIGKILL))

        // Only whole lines: a number whose newline did not get out is not counted as printed.
        let text = String(decoding: output, as: UTF8.self)
        let printed = text.split(separator: "\n", omittingEmptySubsequences: false).dropLast().compactMap { Int($0) }

        let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        let contents = JSONLinesReportReader().read(bytes, path: path)
        let lines = bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
        let tornLast = bytes.last.map { $0 != UInt8(ascii: "\n") } ?? false
        #expect(
            contents.invalidLineCount == (tornLast ? 1 : 0),
            "Lines that are not whole reports: \(contents.invalidLines)")
        #expect(contents.reports.count == lines.count - 1, "Every line ending in a newline is a report.")
        let numbers = contents.reports.compactMap { report in
            report.context.first { $0.key == "n" }.flatMap { Int($0.value) }
        }
        #expect(numbers.count == contents.reports.count)
        return KilledRun(printed: printed, numbersInTheFile: Set(numbers))
    }
}
