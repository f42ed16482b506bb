import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Appends each report as one line of JSON to a file that several processes may share.
///
/// ## Crash safety
///
/// - The file is opened with `O_APPEND`, and each report is one whole line, newline included,
///   written with a single `write(2)`: the kernel appends it at the end of the file in one piece,
///   so lines from processes writing at once never interleave.
/// - A process that dies in the middle of a write (or a disk that fills up) can leave a torn last
///   line without its newline. When the sink opens a file that does not end with a newline, it
///   *seals* the torn line by appending a newline, so the next report starts a line of its own.
///   The torn fragment stays as one invalid line, which ``JSONLinesReportReader`` skips and counts.
/// - A write of its own that the kernel cuts short (the disk or the file size limit is reached)
///   is sealed at once if a newline still fits; if not, the sink remembers it and puts the newline
///   in front of its next report, in the same single write, so the torn fragment never swallows
///   a later report.
/// - Sealing is chosen over truncating back to the last newline because it is safe while other
///   processes append: between reading the end of the file and truncating it, another process may
///   have appended a whole report, which truncation would destroy. An extra newline at worst adds
///   an empty line, which readers skip.
///
/// ## Size
///
/// The file stops growing at ``maximumFileSize``: a report that would pass it is dropped, counted
/// in ``droppedForSize``, and the sink throws ``ReportingErrorCode/fileFull`` (so the reporter
/// counts a sink failure). The sink does not rotate: renaming a file that other processes still
/// append to would split or lose their lines. Rotate from outside (logrotate's `copytruncate`
/// works, since every write appends at the current end), or give each process its own file.
public final class JSONLinesReportSink: ReportSink {
    /// The file's path.
    public let path: String
    /// The size past which reports are dropped.
    public let maximumFileSize: Int
    /// Whether the file ended in a torn line when it was opened, and was sealed.
    public let sealedTornLine: Bool

    /// What the writes left behind.
    private struct WriteState {
        /// Reports dropped because the file reached its maximum size.
        var droppedForSize = 0
        /// Whether the file ends in a line this sink tore and could not seal.
        var needsSeal = false
    }

    private let descriptor: Int32
    /// Held across each write, so that the line a write tore is sealed before another starts.
    private let state = Locked(WriteState())

    /// Opens (or creates) the file for appending, sealing a torn last line.
    ///
    /// - Parameters:
    ///   - path: The file; created with mode 0644 if it does not exist.
    ///   - maximumFileSize: The size past which reports are dropped; 10 MiB by default, thousands
    ///     of reports (one is 1–2 KB): many sessions' worth, since a session sends at most a few
    ///     hundred, yet small enough to read at once and to keep on any device.
    /// - Throws: ``ReportingErrorCode/cannotOpenFile`` when the file cannot be opened or sealed.
    public init(path: String, maximumFileSize: Int = 10 * 1024 * 1024) throws(ReportingError) {
        self.path = path
        self.maximumFileSize = max(0, maximumFileSize)
        // Opening a named pipe for writing waits until something reads it, which may be never:
        // open without waiting (a pipe nobody reads fails with ENXIO), then write with waits again.
        let descriptor = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NONBLOCK, 0o644)
        guard descriptor >= 0 else {
            throw Self.error(.cannotOpenFile, path: path, errno: errno, reason: "Cannot open the report file.")
        }
        let flags = fcntl(descriptor, F_GETFL)
        guard flags >= 0, fcntl(descriptor, F_SETFL, flags & ~O_NONBLOCK) == 0 else {
            let code = errno
            close(descriptor)
            throw Self.error(.cannotOpenFile, path: path, errno: code, reason: "Cannot open the report file.")
        }
        do {
            sealedTornLine = try Self.sealTornLine(descriptor: descriptor, path: path)
        } catch {
            close(descriptor)
            throw error
        }
        self.descriptor = descriptor
    }

    deinit {
        close(descriptor)
    }

    /// Reports dropped because the file reached ``maximumFileSize``.
    public var droppedForSize: Int { state.withLock { $0.droppedForSize } }

    public func receive(_ report: NonFatalReport) async throws {
        var line = try report.jsonLine()
        line.append(UInt8(ascii: "\n"))
        try append(line)
    }

    /// Appends one whole line with one `write(2)`, preceded by the newline that seals a line an
    /// earlier write tore, if that one could not be written then.
    func append(_ line: Data) throws(ReportingError) {
        let failure = state.withLock { state -> ReportingError? in
            let bytes = state.needsSeal ? Data("\n".utf8) + line : line
            var status = stat()
            if fstat(descriptor, &status) == 0, Int(status.st_size) + bytes.count > maximumFileSize {
                state.droppedForSize += 1
                return ReportingError(
                    .fileFull,
                    reason: "The report file reached its maximum size of \(maximumFileSize) bytes.",
                    context: ["path": "\(path)"]
                )
            }
            let written = bytes.withUnsafeBytes { bytes -> Int in
                while true {
                    let result = write(descriptor, bytes.baseAddress, bytes.count)
                    if result < 0 && errno == EINTR { continue }
                    return result
                }
            }
            if written == bytes.count {
                state.needsSeal = false
                return nil
            }
            let code = errno
            if written > 0 {
                if state.needsSeal && written == 1 {
                    // Only the seal got out: the old torn line is ended, and no new one begun.
                    state.needsSeal = false
                } else {
                    // A partial write left a torn line: end it, so the next report starts a line
                    // of its own; if the newline does not fit either, the next write starts with it.
                    var newline = UInt8(ascii: "\n")
                    state.needsSeal = write(descriptor, &newline, 1) != 1
                }
            }
            return Self.error(
                .cannotWriteFile,
                path: path,
                errno: written < 0 ? code : ENOSPC,
                reason: "Wrote \(max(written, 0)) of \(bytes.count) bytes."
            )
        }
        if let failure { throw failure }
    }

    /// Appends a newline if the file does not end with one; whether it did that.
    private static func sealTornLine(descriptor: Int32, path: String) throws(ReportingError) -> Bool {
        var status = stat()
        guard fstat(descriptor, &status) == 0 else {
            throw error(.cannotOpenFile, path: path, errno: errno, reason: "Cannot read the report file's size.")
        }
        guard status.st_size > 0 else { return false }
        // O_APPEND only affects writes; pread still reads at the given offset.
        let reader = open(path, O_RDONLY | O_CLOEXEC)
        guard reader >= 0 else {
            throw error(.cannotOpenFile, path: path, errno: errno, reason: "Cannot read the report file.")
        }
        defer { close(reader) }
        var last: UInt8 = 0
        guard pread(reader, &last, 1, off_t(status.st_size - 1)) == 1 else {
            throw error(.cannotOpenFile, path: path, errno: errno, reason: "Cannot read the report file's end.")
        }
        guard last != UInt8(ascii: "\n") else { return false }
        var newline = UInt8(ascii: "\n")
        guard write(descriptor, &newline, 1) == 1 else {
            throw error(.cannotOpenFile, path: path, errno: errno, reason: "Cannot seal the torn last line.")
        }
        return true
    }

    private static func error(
        _ code: ReportingErrorCode,
        path: String,
        errno: Int32,
        reason: String
    ) -> ReportingError {
        let cause = POSIXErrorCode(rawValue: errno).map { POSIXError($0) }
        return ReportingError(code, cause: cause, reason: reason, context: ["path": "\(path)"])
    }
}
