import Rebound
import ReboundReportAnalysis

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A line on stderr that says how far a command has got, rewritten in place, when stderr is a
/// terminal and only then: a pipe or a file gets nothing, so `--json` output and logs stay clean.
///
/// ```
/// reading 2 of 4 files: 120.5 of 337.7 MB (35%), 178312 reports      (rebound report)
/// 1520 calls (1498 ok, 22 failed), 1544 attempts, 7.6 s               (rebound load)
/// ```
///
/// It is rewritten at most every tenth of a second, and erased when the command ends. It may be
/// shown from any task.
final class ProgressLine: Sendable {
    /// How often the line is rewritten: often enough to look alive, rarely enough to cost nothing.
    static let interval = Duration.milliseconds(100)

    /// Whether the line is shown at all: stderr is a terminal.
    let isShown: Bool
    private let clock = ContinuousClock()
    private let state = Locked((lastShown: ContinuousClock.Instant?.none, written: false))

    init(isTerminal: Bool = isatty(STDERR_FILENO) == 1) {
        isShown = isTerminal
    }

    /// Shows `text`, unless the line was rewritten less than ``interval`` ago.
    func show(_ text: @autoclosure () -> String) {
        guard isShown else { return }
        state.withLock { state in
            let now = clock.now
            if let lastShown = state.lastShown, lastShown.duration(to: now) < Self.interval { return }
            state.lastShown = now
            // Back to the line's start, the text, then erase what a longer earlier text left.
            Self.write("\r" + text() + "\u{1B}[K")
            state.written = true
        }
    }

    /// Shows how far `rebound report` has read.
    func show(_ progress: JSONLinesReportReader.Progress) {
        show(Self.text(of: progress))
    }

    /// Erases the line, if one was written.
    func finish() {
        state.withLock { state in
            guard state.written else { return }
            Self.write("\r\u{1B}[K")
            state.written = false
        }
    }

    private static func text(of progress: JSONLinesReportReader.Progress) -> String {
        let read =
            progress.totalBytes.map { total in
                "\(megabytes(progress.bytesRead)) of \(megabytes(total)) MB "
                    + "(\(total > 0 ? progress.bytesRead * 100 / total : 100)%)"
            } ?? "\(megabytes(progress.bytesRead)) MB"
        return "reading \(progress.file) of \(progress.files) file\(progress.files == 1 ? "" : "s"): "
            + "\(read), \(progress.reports) reports"
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
