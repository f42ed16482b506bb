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
/// report of an incompatible format) is skipped and counted in ``Contents/invalidLineCount``; the
/// first ``maximumListedInvalidLines`` of them are listed in ``Contents/invalidLines``. Empty
/// lines are skipped silently. Reading never fails because of a file's content, only because a
/// file cannot be read, and takes memory for the file and its reports, not for each line.
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
    /// see its pattern. Listing every one would cost memory per line, far more than the file: a
    /// 16 MiB file of 8 million one-byte lines took 462 MB to read, and more to print as JSON.
    public static let maximumListedInvalidLines = 100

    /// The largest file the reader reads: 256 MiB by default, 25 times the default cap of a
    /// `JSONLinesReportSink` file, so that a file of another kind cannot exhaust memory.
    public let maximumFileSize: Int

    public init(maximumFileSize: Int = 256 * 1024 * 1024) {
        self.maximumFileSize = max(0, maximumFileSize)
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
        for path in paths {
            let data = try Self.contents(of: path, limit: maximumFileSize)
            contents.append(self.read(data, path: path))
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
            if line.allSatisfy({ $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\r") || $0 == UInt8(ascii: "\t") }) {
                continue
            }
            if let report = try? decoder.decode(NonFatalReport.self, from: Data(line)) {
                contents.reports.append(report)
            } else {
                contents.addInvalidLine(InvalidLine(path: path, line: number))
            }
        }
        return contents
    }

    /// The bytes of the file at `path`, read with the system's calls so that a failure keeps its
    /// `errno`.
    private static func contents(of path: String, limit: Int) throws(ReportingError) -> Data {
        func failure(_ code: Int32) -> ReportingError {
            ReportingError(
                .cannotReadFile,
                cause: POSIXError(POSIXErrorCode(rawValue: code) ?? .EIO),
                reason: String(cString: strerror(code)),
                context: ["path": "\(path)"]
            )
        }
        // Opening a pipe for reading waits until something opens it for writing, which may be
        // never: open without waiting, and decide by the file's type what to read.
        let descriptor = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else { throw failure(errno) }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { throw failure(errno) }
        switch info.st_mode & S_IFMT {
        case S_IFREG:
            break
        case S_IFIFO, S_IFCHR:
            // A pipe (`<(cat f)` hands one over) is read to its end; reads wait for a writer that
            // is still writing, and a pipe that no one writes to reads as empty at once. A
            // character device is read the same way: `/dev/null` is an empty input, and one with
            // no end (`/dev/zero`) stops at the size limit below.
            let flags = fcntl(descriptor, F_GETFL)
            guard flags >= 0, fcntl(descriptor, F_SETFL, flags & ~O_NONBLOCK) == 0 else { throw failure(errno) }
        case S_IFDIR:
            throw failure(EISDIR)
        default:
            // A socket or a block device holds no report file.
            throw ReportingError(
                .cannotReadFile,
                reason: "Not a regular file, a pipe or a character device.",
                context: ["path": "\(path)"]
            )
        }
        func tooLarge() -> ReportingError {
            ReportingError(
                .cannotReadFile,
                reason: "The file is larger than \(limit) bytes, the reader's limit.",
                context: ["path": "\(path)", "maximumFileSize": "\(limit)"]
            )
        }
        guard Int(info.st_size) <= limit else { throw tooLarge() }
        var data = Data(capacity: Int(info.st_size))
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = chunk.withUnsafeMutableBytes { buffer in
                #if canImport(Glibc)
                    Glibc.read(descriptor, buffer.baseAddress, buffer.count)
                #else
                    Darwin.read(descriptor, buffer.baseAddress, buffer.count)
                #endif
            }
            if count == 0 { return data }
            if count < 0 {
                if errno == EINTR { continue }
                throw failure(errno)
            }
            guard data.count + count <= limit else { throw tooLarge() }
            data.append(contentsOf: chunk[..<count])
        }
    }
}
