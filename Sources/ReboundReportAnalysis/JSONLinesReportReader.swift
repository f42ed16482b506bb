public import Rebound

#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Reads reports from JSON-lines files, skipping and counting lines that are not reports.
///
/// A line that is not a valid report (a torn line left by a crash, a line from another tool, a
/// report of an incompatible format, a line longer than ``maximumLineLength``) is skipped and
/// counted; the first ``maximumListedInvalidLines`` of them are listed as `path:line`. Empty
/// lines are skipped silently. Reading never fails because of a file's content, only because a
/// file cannot be read.
///
/// Files are read as streams, a block at a time, whatever their size: a line is never held
/// beyond ``maximumLineLength`` bytes, so memory does not grow with a file.
/// ``read(_:into:progress:)`` counts the reports into a ``ReportTally``, whose memory grows with
/// the distinct chains, sessions, builds and hosts, not with the reports; it takes directories,
/// glob patterns and `-` for standard input, and checks each line without decoding it whole
/// (see ``ReportTally``). ``read(paths:)`` decodes every report in full, for a program that wants
/// the `NonFatalReport` values, and holds them all.
///
/// ```swift
/// var tally = ReportTally()
/// let summary = try JSONLinesReportReader().read(["/var/log/app/", "old/*.jsonl"], into: &tally)
/// let analysis = ReportAnalysis(tally: tally)
/// print(summary.reports, summary.invalidLineCount)
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
        /// The first lines that were not reports, at most
        /// ``JSONLinesReportReader/maximumListedInvalidLines``, in the order of the files and of
        /// their lines.
        public var invalidLines: [InvalidLine] = []
        /// How many lines were not reports, listed in ``invalidLines`` or not.
        public var invalidLineCount = 0

        /// - Parameters:
        ///   - reports: The reports.
        ///   - invalidLines: The lines that were not reports, as listed.
        ///   - invalidLineCount: How many lines were not reports; `invalidLines.count` by default.
        public init(reports: [NonFatalReport] = [], invalidLines: [InvalidLine] = [], invalidLineCount: Int? = nil) {
            self.reports = reports
            self.invalidLines = invalidLines
            self.invalidLineCount = invalidLineCount ?? invalidLines.count
        }

        /// Counts a line that is not a report, and lists it while the list is short.
        mutating func addInvalidLine(_ line: InvalidLine) {
            invalidLineCount += 1
            if invalidLines.count < JSONLinesReportReader.maximumListedInvalidLines { invalidLines.append(line) }
        }

        /// Adds what another file held after what this holds.
        mutating func append(_ other: Contents) {
            reports += other.reports
            let room = max(0, JSONLinesReportReader.maximumListedInvalidLines - invalidLines.count)
            invalidLines += other.invalidLines.prefix(room)
            invalidLineCount += other.invalidLineCount
        }
    }

    /// The most invalid lines ``Contents/invalidLines`` lists: 100, enough to find the damage and
    /// see its pattern. Listing every one would cost memory per line, many times the file's own
    /// size for a file of short lines.
    public static let maximumListedInvalidLines = 100

    /// The most bytes the reader reads from one file before it refuses it; none by default
    /// (`Int.max`), since memory does not grow with a file. A bound for a caller that wants one:
    /// an endless device such as `/dev/zero` is otherwise read for ever.
    public let maximumFileSize: Int

    /// The longest line the reader considers, in bytes, without its newline: 1 MiB by default.
    ///
    /// A longer line is not read whole: it is counted as an invalid line and skipped up to its
    /// newline, so that a file with no newline at all (a binary file, a log gone wrong) costs no
    /// more memory than a short one. A reporter's line is a few kilobytes: reasons and context
    /// values are cut to 500 characters, and a chain has at most 64 links.
    public let maximumLineLength: Int

    /// The largest ``maximumLineLength``: 256 MiB, the reader's buffer holds a whole line.
    public static let largestLineLength = 256 * 1024 * 1024

    /// How much the reader asks the system for at a time: 1 MiB, large enough that the calls cost
    /// nothing next to scanning, small enough to stay in the caches.
    static let blockSize = 1024 * 1024

    /// - Parameters:
    ///   - maximumFileSize: The most bytes read from one file; none by default.
    ///   - maximumLineLength: The longest line considered, from 1 to ``largestLineLength``.
    public init(maximumFileSize: Int = .max, maximumLineLength: Int = 1024 * 1024) {
        self.maximumFileSize = max(0, maximumFileSize)
        self.maximumLineLength = min(max(1, maximumLineLength), Self.largestLineLength)
    }

    /// Reads every file, in order.
    ///
    /// - Parameter paths: The files.
    /// - Returns: Their reports and their invalid lines.
    /// - Throws: `ReportingErrorCode.cannotReadFile` for the first file that cannot be read
    ///   (its cause a `POSIXError`, such as `ENOENT`, and its reason the system's words for it),
    ///   that is larger than ``maximumFileSize``, or that is neither a regular file nor a pipe
    ///   (a device, a socket). A pipe is read to its end; one that nothing writes to is empty.
    public func read(paths: [String]) throws(ReportingError) -> Contents {
        var contents = Contents()
        let decoder = JSONDecoder()
        for path in paths {
            let input = try ReportInput.open(path)
            defer { input.close() }
            var lines = LineSplitter(maximumLineLength: maximumLineLength, limit: maximumFileSize)
            try lines.read(input) { line, number in
                guard let line else {
                    contents.addInvalidLine(InvalidLine(path: path, line: number))
                    return
                }
                guard !Self.isBlank(line) else { return }
                if let report = Self.report(in: Data(line), decoder: decoder) {
                    contents.reports.append(report)
                } else {
                    contents.addInvalidLine(InvalidLine(path: path, line: number))
                }
            } progress: { _ in
            }
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
        // One line at a time, as a slice of `data`: splitting first would hold a slice for every
        // line at once.
        var start = data.startIndex
        var number = 0
        while start < data.endIndex {
            let end = data[start...].firstIndex(of: UInt8(ascii: "\n")) ?? data.endIndex
            let line = data[start..<end]
            number += 1
            start = end == data.endIndex ? end : end + 1
            if Self.isBlank(line) { continue }
            if let report = Self.report(in: Data(line), decoder: decoder) {
                contents.reports.append(report)
            } else {
                contents.addInvalidLine(InvalidLine(path: path, line: number))
            }
        }
        return contents
    }

    /// The report on `line`, or `nil` when it is none: a line the streaming reader's
    /// ``ReportLineScanner`` does not take, or that `NonFatalReport` does not decode.
    ///
    /// Foundation's decoder alone does not check all of what it skips: it takes bytes that are
    /// not UTF-8 or a control character in a string of a key it does not read, which JSON does
    /// not allow. Asking the scanner first makes both readers take the same lines.
    static func report(in line: Data, decoder: JSONDecoder) -> NonFatalReport? {
        guard line.withUnsafeBytes({ ReportLineScanner.scan($0) }) != nil else { return nil }
        return try? decoder.decode(NonFatalReport.self, from: line)
    }

    /// Whether a line holds only spaces, tabs and carriage returns: an empty line, skipped.
    static func isBlank(_ line: some Collection<UInt8>) -> Bool {
        line.allSatisfy(isBlankByte)
    }

    private static func isBlankByte(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\r") || byte == UInt8(ascii: "\t")
    }
}
