#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

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
///   The torn fragment stays as one invalid line, which `JSONLinesReportReader` (in
///   `ReboundReportAnalysis`) skips and counts.
/// - A file the sink may write but not read (mode 0200, so that only a collector reads it) hides
///   its last byte, so the sink cannot tell whether the last line is torn: it seals it as if it
///   were, with a newline in front of its first report, in the same single write. A whole last
///   line then gains an empty line after it, which readers skip; nothing is read, and nothing is
///   written until a report is.
/// - A write of its own that the kernel cuts short (the disk or the file size limit is reached)
///   is sealed at once if a newline still fits; if not, the sink remembers it and puts the newline
///   in front of its next report, in the same single write, so the torn fragment never swallows
///   a later report.
/// - Sealing is chosen over truncating back to the last newline because it is safe while other
///   processes append: between reading the end of the file and truncating it, another process may
///   have appended a whole report, which truncation would destroy. An extra newline at worst adds
///   an empty line, which readers skip.
///
/// ## Durability
///
/// What a report survives depends on when it is written and whether it is synced:
///
/// | setting | survives a crash of the process | survives a crash of the operating system or a power cut |
/// |---|---|---|
/// | reporter ``NonFatalReporter/Delivery/queued`` | once the queue delivered it | once synced |
/// | reporter ``NonFatalReporter/Delivery/writtenBeforeReturn`` | once `record` returned | once synced |
/// | ``fsyncEachReport`` | — | each report, before `record` returns in written-before-return delivery |
/// | ``NonFatalReporter/flush()`` | every report recorded before it | every report recorded before it: it calls ``flush()``, which syncs the file |
///
/// A write that returned is in the kernel's page cache, which outlives the process but not the
/// kernel; `fsync(2)` waits until the storage has it, a cost per report that docs/reliability.md
/// measures. Most apps sync at points instead: ``NonFatalReporter/flush()`` when going to the
/// background, every few minutes on a server.
///
/// ```swift
/// let sink = try JSONLinesReportSink(path: "/var/log/app/nonfatal.jsonl", fsyncEachReport: true)
/// let reporter = NonFatalReporter(
///     configuration: .init(build: BuildIdentity(version: "2.4.1", revision: "3f9c2ab"), delivery: .writtenBeforeReturn),
///     sinks: [sink]
/// )
/// ```
///
/// In written-before-return delivery the recording thread waits for the write (and the sync): point
/// the sink at a regular file, not at a named pipe, whose reader could make it wait without end.
///
/// ## Size
///
/// The file stops growing at ``maximumFileSize``: a report that would pass it is dropped, counted
/// in ``droppedForSize``, and the sink throws ``ReportingErrorCode/fileFull`` (so the reporter
/// counts a sink failure). The sink does not rotate: renaming a file that other processes still
/// append to would split or lose their lines. Rotate from outside (logrotate's `copytruncate`
/// works, since every write appends at the current end), or give each process its own file.
public final class JSONLinesReportSink: SynchronousReportSink {
    /// The file's path.
    public let path: String
    /// The size past which reports are dropped.
    public let maximumFileSize: Int
    /// Whether the file ended in a torn line when it was opened, and was sealed.
    ///
    /// `false` also when the sink could not read the file's end (a write-only file): it then puts
    /// a newline in front of its first report instead, whether or not the last line was torn.
    public let sealedTornLine: Bool
    /// Whether each report is synced to storage (`fsync(2)`) before ``receiveSynchronously(_:)``
    /// returns.
    public let fsyncEachReport: Bool

    /// What the writes left behind.
    private struct WriteState {
        /// Reports dropped because the file reached its maximum size.
        var droppedForSize = 0
        /// Whether the file may end in a torn line not sealed yet: one this sink tore and could
        /// not seal, or one it could not see on open because it cannot read the file.
        var needsSeal = false
    }

    /// What the sink found at the file's end when it opened it.
    private enum End {
        /// Empty, or a newline: the next report starts a line of its own.
        case whole
        /// A torn line, which the sink ended with a newline.
        case sealed
        /// Not readable, so the first report starts with a newline.
        case unread
    }

    private let descriptor: Int32
    /// Held across each write, so that the line a write tore is sealed before another starts.
    private let state: Locked<WriteState>

    /// Opens (or creates) the file for appending, sealing a torn last line.
    ///
    /// A file this process may not read (write-only) is not read: its first report starts with a
    /// newline, which seals a torn last line and costs an empty line after a whole one.
    ///
    /// - Parameters:
    ///   - path: The file; created with mode 0644 if it does not exist.
    ///   - maximumFileSize: The size past which reports are dropped; 10 MiB by default, thousands
    ///     of reports (one is 1–2 KB): many sessions' worth, since a session sends at most a few
    ///     hundred, yet small enough to read at once and to keep on any device.
    ///   - fsyncEachReport: Whether each report is synced to storage before the write returns, to
    ///     survive a crash of the operating system or a power cut (see Durability above); off by
    ///     default, since ``NonFatalReporter/flush()`` syncs at the points the app chooses.
    /// - Throws: ``ReportingErrorCode/cannotOpenFile`` when the file cannot be opened or sealed.
    public init(
        path: String,
        maximumFileSize: Int = 10 * 1024 * 1024,
        fsyncEachReport: Bool = false
    ) throws(ReportingError) {
        self.path = path
        self.maximumFileSize = max(0, maximumFileSize)
        self.fsyncEachReport = fsyncEachReport
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
        let end: End
        do {
            end = try Self.sealTornLine(descriptor: descriptor, path: path)
        } catch {
            close(descriptor)
            throw error
        }
        sealedTornLine = end == .sealed
        state = Locked(WriteState(needsSeal: end == .unread))
        self.descriptor = descriptor
    }

    deinit {
        close(descriptor)
    }

    /// Reports dropped because the file reached ``maximumFileSize``.
    public var droppedForSize: Int { state.withLock { $0.droppedForSize } }

    public func receive(_ report: NonFatalReport) async throws {
        try receiveSynchronously(report)
    }

    /// Appends the report as one line, and syncs the file if ``fsyncEachReport`` says so.
    ///
    /// - Parameter report: The report.
    /// - Throws: ``ReportingErrorCode/fileFull`` past ``maximumFileSize``,
    ///   ``ReportingErrorCode/cannotWriteFile`` when the write or the sync fails, or the encoder's
    ///   error.
    public func receiveSynchronously(_ report: NonFatalReport) throws {
        var line = try report.jsonLine()
        line.append(UInt8(ascii: "\n"))
        try append(line)
    }

    /// Syncs the file to storage (`fsync(2)`), so that every report written so far survives a
    /// crash of the operating system or a power cut. A named pipe or a device, which cannot be
    /// synced, is left as it is.
    ///
    /// - Throws: ``ReportingErrorCode/cannotWriteFile`` when the sync fails (the storage
    ///   reported an error: reports written since the last sync may be lost).
    public func flush() async throws {
        try state.withLock { _ in try sync() }
    }

    /// `fsync(2)` of the descriptor; call it under the state lock, so that it follows the writes
    /// before it.
    private func sync() throws(ReportingError) {
        while fsync(descriptor) != 0 {
            let code = errno
            if code == EINTR { continue }
            // EINVAL: a pipe, a socket or a device, which has nothing to sync.
            if code == EINVAL || code == EROFS { return }
            throw Self.error(
                .cannotWriteFile, path: path, errno: code, reason: "Cannot sync the report file to storage.")
        }
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
                guard fsyncEachReport else { return nil }
                do throws(ReportingError) { try sync() } catch { return error }
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

    /// Appends a newline if the file does not end with one, or tells that its end cannot be read.
    ///
    /// The descriptor is write-only (a read-write open of a named pipe would not wait for a
    /// reader, and would block later writes instead of failing), so the end is read through a
    /// second one. When that cannot be opened or read (no read permission, most likely), sealing
    /// waits for the first report, which needs no reading: an unneeded newline costs an empty
    /// line, while refusing the file would lose every report.
    private static func sealTornLine(descriptor: Int32, path: String) throws(ReportingError) -> End {
        var status = stat()
        guard fstat(descriptor, &status) == 0 else {
            throw error(.cannotOpenFile, path: path, errno: errno, reason: "Cannot read the report file's size.")
        }
        guard status.st_size > 0 else { return .whole }
        // O_APPEND only affects writes; pread still reads at the given offset.
        let reader = open(path, O_RDONLY | O_CLOEXEC)
        guard reader >= 0 else { return .unread }
        defer { close(reader) }
        var last: UInt8 = 0
        guard pread(reader, &last, 1, off_t(status.st_size - 1)) == 1 else { return .unread }
        guard last != UInt8(ascii: "\n") else { return .whole }
        var newline = UInt8(ascii: "\n")
        guard write(descriptor, &newline, 1) == 1 else {
            throw error(.cannotOpenFile, path: path, errno: errno, reason: "Cannot seal the torn last line.")
        }
        return .sealed
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
