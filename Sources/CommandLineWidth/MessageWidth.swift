#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The width, in columns, that the command-line tools (`rebound`, `mock-backend`, `task-client`)
/// wrap their help and messages to.
///
/// ArgumentParser reads `COLUMNS`, then the terminal's width, and wraps to whatever it finds. Its
/// help sets options in a column 26 wide and indents wrapped lines by up to 28, so a narrower
/// width has no room: below 27 columns (`COLUMNS=0`, a narrow terminal window) a debug build stops
/// on an assertion and a release build leaves the text out, and a hugely negative `COLUMNS`
/// overflows. The tools find the width the same way and pass it, at least ``narrowest``.
package enum MessageWidth {
    /// The narrowest width: room for the option column and some text beside it.
    package static let narrowest = 40
    /// ArgumentParser's width when neither `COLUMNS` nor the terminal gives one.
    package static let standard = 80

    /// `columns` (the value of `COLUMNS`) when it is a whole number, as ArgumentParser reads it;
    /// otherwise `terminalColumns`, otherwise ``standard``; never less than ``narrowest``.
    package static func width(columns: String?, terminalColumns: Int?) -> Int {
        max(narrowest, columns.flatMap { Int($0) } ?? terminalColumns ?? standard)
    }

    /// The width for this process: its `COLUMNS`, or the width of the terminal on stdout.
    package static var current: Int {
        width(columns: getenv("COLUMNS").map { String(cString: $0) }, terminalColumns: terminalColumns())
    }

    /// Sets this process's `COLUMNS` to ``current`` and returns it: ArgumentParser reads `COLUMNS`
    /// wherever it wraps text (its help, `exitCode(for:)`, `exit(withError:)`), so this gives it a
    /// width with room everywhere. Call it first thing in `main`.
    @discardableResult
    package static func applyToEnvironment() -> Int {
        let width = current
        setenv("COLUMNS", String(width), 1)
        return width
    }

    /// The width of the terminal on stdout, as ArgumentParser asks for it; `nil` when stdout is not
    /// a terminal or it reports no width.
    private static func terminalColumns() -> Int? {
        var size = winsize()
        #if canImport(Glibc)
            let request = UInt(TIOCGWINSZ)
        #else
            let request = TIOCGWINSZ
        #endif
        guard ioctl(STDOUT_FILENO, request, &size) == 0, size.ws_col > 0 else { return nil }
        return Int(size.ws_col)
    }
}
