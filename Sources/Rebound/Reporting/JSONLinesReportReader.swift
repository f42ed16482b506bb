public import Foundation

/// Reads reports from JSON-lines files, skipping and counting lines that are not reports.
///
/// A line that is not a valid report (a torn line left by a crash, a line from another tool, a
/// report of an incompatible format) is skipped and listed in ``Contents/invalidLines``; empty
/// lines are skipped silently. Reading never fails because of a file's content, only because a
/// file cannot be read.
///
/// ```swift
/// let contents = try JSONLinesReportReader().read(paths: ["nonfatal.jsonl"])
/// let analysis = ReportAnalysis(reports: contents.reports)
/// ```
public struct JSONLinesReportReader: Sendable {
    /// A line that is not a report.
    public struct InvalidLine: Hashable, Sendable, Codable, CustomStringConvertible {
        /// The file it is in.
        public var path: String
        /// Its number in the file, from 1.
        public var line: Int

        public init(path: String, line: Int) {
            self.path = path
            self.line = line
        }

        /// `path:line`.
        public var description: String { "\(path):\(line)" }
    }

    /// What was read.
    public struct Contents: Sendable {
        /// The reports, in the order of the files and of their lines.
        public var reports: [NonFatalReport] = []
        /// The lines that were not reports.
        public var invalidLines: [InvalidLine] = []

        public init(reports: [NonFatalReport] = [], invalidLines: [InvalidLine] = []) {
            self.reports = reports
            self.invalidLines = invalidLines
        }
    }

    public init() {}

    /// Reads every file, in order.
    ///
    /// - Parameter paths: The files.
    /// - Returns: Their reports and their invalid lines.
    /// - Throws: ``ReportingErrorCode/cannotReadFile`` for the first file that cannot be read.
    public func read(paths: [String]) throws(ReportingError) -> Contents {
        var contents = Contents()
        for path in paths {
            let data: Data
            do {
                data = try Data(contentsOf: URL(fileURLWithPath: path))
            } catch {
                throw ReportingError(
                    .cannotReadFile,
                    cause: error,
                    reason: "Cannot read the report file.",
                    context: ["path": "\(path)"]
                )
            }
            let read = self.read(data, path: path)
            contents.reports += read.reports
            contents.invalidLines += read.invalidLines
        }
        return contents
    }

    /// Reads the reports in one file's bytes.
    ///
    /// - Parameters:
    ///   - data: The file's content.
    ///   - path: The file's name, for ``InvalidLine/path``.
    /// - Returns: The reports and the invalid lines.
    public func read(_ data: Data, path: String) -> Contents {
        var contents = Contents()
        let decoder = JSONDecoder()
        for (index, line) in data.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).enumerated() {
            if line.allSatisfy({ $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\r") || $0 == UInt8(ascii: "\t") }) {
                continue
            }
            if let report = try? decoder.decode(NonFatalReport.self, from: Data(line)) {
                contents.reports.append(report)
            } else {
                contents.invalidLines.append(InvalidLine(path: path, line: index + 1))
            }
        }
        return contents
    }
}
