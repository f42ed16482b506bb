import ReboundReportAnalysis

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A line on stderr that says how far `rebound report` has read, rewritten in place, when stderr
/// is a terminal and only then: a pipe or a file gets nothing, so `--json` output and logs stay
/// clean.
///
/// ```
/// reading 2 of 4 files: 120.5 of 337.7 MB (35%), 178312 reports
/// ```
///
/// It is rewritten at most every tenth of a second, and erased when reading ends.
final class ProgressLine {
    /// How often the line is rewritten: often enough to look alive, rarely enough to cost nothing.
    static let interval = Duration.milliseconds(100)

    private let isShown: Bool
    private let clock = ContinuousClock()
    private var lastShown: ContinuousClock.Instant?
    private var written = false

    init(isTerminal: Bool = isatty(STDERR_FILENO) == 1) {
        isShown = isTerminal
    }

    /// Shows `progress`, unless the line was rewritten less than ``interval`` ago.
    func show(_ progress: JSONLinesReportReader.Progress) {
        guard isShown else { return }
        let now = clock.now
        if let lastShown, lastShown.duration(to: now) < Self.interval { return }
        lastShown = now
        let read =
            progress.totalBytes.map { total in
                "\(Self.megabytes(progress.bytesRead)) of \(Self.megabytes(total)) MB "
                    + "(\(total > 0 ? progress.bytesRead * 100 / total : 100)%)"
            } ?? "\(Self.megabytes(progress.bytesRead)) MB"
        let text =
            "reading \(progress.file) of \(progress.files) file\(progress.files == 1 ? "" : "s"): "
            + "\(read), \(progress.reports) reports"
        // Back to the line's start, the text, then erase what a longer earlier text left.
        Self.write("\r" + text + "\u{1B}[K")
        written = true
    }

    /// Erases the line, if one was written.
    func finish() {
        guard written else { return }
        Self.write("\r\u{1B}[K")
        written = false
    }

    /// Bytes in megabytes (10⁶) with one decimal.
    private static func megabytes(_ bytes: Int) -> String {
        let tenths = bytes / 100_000
        return "\(tenths / 10).\(tenths % 10)"
    }

    private static func write(_ text: String) {
        var text = text
        text.withUTF8 { bytes in
            _ = Glibc.write(STDERR_FILENO, bytes.baseAddress, bytes.count)
        }
    }
}
