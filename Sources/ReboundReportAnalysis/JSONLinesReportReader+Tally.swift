public import Rebound

extension JSONLinesReportReader {
    /// What ``JSONLinesReportReader/read(_:into:progress:)`` read, besides the reports it counted.
    public struct Summary: Sendable {
        /// The files read, in order, after directories and patterns were expanded; `-` for
        /// standard input.
        public var files: [String] = []
        /// The reports counted.
        public var reports = 0
        /// The first lines that were not reports, at most
        /// ``JSONLinesReportReader/maximumListedInvalidLines``, in the order of the files and of
        /// their lines.
        public var invalidLines: [InvalidLine] = []
        /// How many lines were not reports, listed or not, over-long ones included.
        public var invalidLineCount = 0
        /// How many of them were longer than ``JSONLinesReportReader/maximumLineLength``.
        public var overlongLineCount = 0
        /// The bytes read.
        public var bytes = 0

        mutating func addInvalidLine(_ line: InvalidLine) {
            invalidLineCount += 1
            if invalidLines.count < JSONLinesReportReader.maximumListedInvalidLines { invalidLines.append(line) }
        }
    }

    /// How far a read has come, for a progress display.
    public struct Progress: Sendable {
        /// The file being read.
        public var path: String
        /// Its number among the files, from 1, and how many there are.
        public var file: Int
        public var files: Int
        /// The bytes read so far, over all files.
        public var bytesRead: Int
        /// The bytes of all files, when every one is a regular file; `nil` when one is a pipe or
        /// standard input.
        public var totalBytes: Int?
        /// The reports counted so far.
        public var reports: Int
    }

    /// Reads the reports of the files, directories and patterns `arguments` name, in order, and
    /// counts them into `tally`.
    ///
    /// Each argument is a file, `-` for standard input, a directory (its `.jsonl` files and its
    /// subdirectories', in the order of their paths), or, if no file has its name and it holds
    /// `*`, `?` or `[`, a glob pattern (its matches, sorted). Every file is read as a stream; each
    /// line is checked as a report without being decoded whole (the checks are those of
    /// `NonFatalReport`'s decoder, listed in full in `docs/reporting.md`), and lines that are not
    /// reports, or are longer than ``maximumLineLength``, are counted and skipped.
    ///
    /// - Parameters:
    ///   - arguments: What to read.
    ///   - tally: Where the reports are counted.
    ///   - progress: Called after each block read (every megabyte or so), on the calling thread.
    /// - Returns: The files read and the lines that were not reports.
    /// - Throws: `ReportingErrorCode.cannotReadFile` for the first argument that names nothing
    ///   (a missing file, its cause `ENOENT`), a directory without report files, a pattern that
    ///   matches nothing, a file that cannot be read, one larger than ``maximumFileSize``, or
    ///   one that is neither a regular file, a pipe nor a character device (a socket, a block
    ///   device). What was counted until then stays in `tally`.
    public func read(
        _ arguments: [String],
        into tally: inout ReportTally,
        progress: ((Progress) -> Void)? = nil
    ) throws(ReportingError) -> Summary {
        var summary = Summary()
        summary.files = try ReportInput.files(in: arguments)
        let inputs = try checkAll(summary.files)
        defer { inputs.forEach { $0.kept?.close() } }
        let sizes = inputs.map(\.size)
        let totalBytes = sizes.contains(nil) ? nil : sizes.reduce(0) { $0 + ($1 ?? 0) }
        for (index, checked) in inputs.enumerated() {
            let input: ReportInput
            if let kept = checked.kept { input = kept } else { input = try ReportInput.open(checked.path) }
            defer { if checked.kept == nil { input.close() } }
            var lines = LineSplitter(maximumLineLength: maximumLineLength, limit: maximumFileSize)
            let before = summary.bytes
            try lines.read(input) { line, number in
                guard let line else {
                    summary.overlongLineCount += 1
                    summary.addInvalidLine(InvalidLine(path: input.path, line: number))
                    return
                }
                guard !Self.isBlank(line) else { return }
                if Self.count(line, into: &tally) {
                    summary.reports += 1
                } else {
                    summary.addInvalidLine(InvalidLine(path: input.path, line: number))
                }
            } progress: { bytes in
                summary.bytes = before + bytes
                progress?(
                    Progress(
                        path: input.path, file: index + 1, files: inputs.count, bytesRead: summary.bytes,
                        totalBytes: totalBytes, reports: summary.reports))
            }
        }
        return summary
    }

    /// An input checked before any is read.
    private struct CheckedInput {
        let path: String
        let size: Int?
        /// A pipe, a device or standard input, kept open from the check on (it cannot be opened
        /// again to the same effect); `nil` for a regular file, opened again when its turn comes.
        let kept: ReportInput?
    }

    /// Opens every input before reading any, so that a missing one fails at once, not after
    /// minutes of reading the others; regular files are closed again until their turn, so that a
    /// fleet's thousands of files never hold more than one descriptor at a time.
    private func checkAll(_ paths: [String]) throws(ReportingError) -> [CheckedInput] {
        var inputs: [CheckedInput] = []
        do {
            for path in paths {
                let input = try ReportInput.open(path)
                let isRegular = input.size != nil
                if isRegular { input.close() }
                inputs.append(CheckedInput(path: path, size: input.size, kept: isRegular ? nil : input))
            }
        } catch {
            inputs.forEach { $0.kept?.close() }
            throw error
        }
        return inputs
    }

    /// Counts `line` into `tally` if it is a report.
    private static func count(_ line: UnsafeRawBufferPointer, into tally: inout ReportTally) -> Bool {
        guard let report = ReportLineScanner.scan(line),
            let chain = ReportLineScanner.text(of: report.chain, in: line),
            let version = ReportLineScanner.text(of: report.version, in: line),
            let revision = ReportLineScanner.text(of: report.revision, in: line)
        else { return false }
        var host: String?
        if let scanned = report.host {
            guard let text = ReportLineScanner.text(of: scanned, in: line) else { return false }
            host = text
        }
        // The full chain is read only for a chain not seen before; one that cannot be read makes
        // the line invalid even so, as it would make decoding fail.
        guard !report.fullChain.hasEscapes || ReportLineScanner.text(of: report.fullChain, in: line) != nil else {
            return false
        }
        tally.add(
            kind: report.kind,
            chain: chain,
            fullChain: { ReportLineScanner.text(of: report.fullChain, in: line) ?? "" },
            time: report.time,
            build: BuildIdentity(version: version, revision: revision),
            session: report.session,
            occurrences: report.occurrences,
            host: host
        )
        return true
    }
}
