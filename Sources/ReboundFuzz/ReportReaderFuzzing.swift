import Foundation
import Rebound
import ReboundReportAnalysis

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The report reader's two ways through a file: streaming, each line checked by
/// `ReportLineScanner` and counted into a `ReportTally` (what `rebound report` does), and decoding
/// every line with `JSONDecoder` (`read(_:path:)`).
///
/// Contract: the scanner agrees with the decoder, as its documentation promises. Both find the
/// same reports and the same invalid lines, and the analysis of what each read is the same
/// (chains, full chains, times, builds, sessions, occurrences, hosts).
enum ReportReaderFuzzing {
    static let reader = JSONLinesReportReader(maximumLineLength: 64 * 1024)
    /// The file the streaming reader reads, one per process.
    static let path = FileManager.default.temporaryDirectory.appendingPathComponent(
        "rebound-fuzz-\(getpid()).jsonl"
    ).path

    static func violations(_ input: [UInt8]) -> [String] {
        let data = Data(input)
        let decoded = reader.read(data, path: path)
        guard FileManager.default.createFile(atPath: path, contents: data) else {
            return ["cannot write \(path)"]
        }
        defer { try? FileManager.default.removeItem(atPath: path) }
        var tally = ReportTally()
        let summary: JSONLinesReportReader.Summary
        do {
            summary = try reader.read([path], into: &tally)
        } catch {
            return ["streaming read failed: \(ErrorChain(error).short)"]
        }
        var violations: [String] = []
        if summary.reports != decoded.reports.count {
            violations.append("\(summary.reports) reports streamed, \(decoded.reports.count) decoded")
        }
        if summary.invalidLines != decoded.invalidLines {
            violations.append("invalid lines streamed \(summary.invalidLines), decoded \(decoded.invalidLines)")
        }
        if ReportAnalysis(tally: tally) != ReportAnalysis(reports: decoded.reports) {
            violations.append("the analyses of the streamed and the decoded reports differ")
        }
        return violations
    }
}
