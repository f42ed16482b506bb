/// The reporting layer's error: the non-fatal reporter or one of its sinks could not do its job.
///
/// This is the `RP` layer. Besides the failures of the file sink and reader, it names the
/// reporter's own drop summary: a report whose chain is `RP1` says how many occurrences the
/// reporter dropped, so that a drop is itself visible in every sink.
public typealias ReportingError = LayerError<ReportingErrorCode>

/// The codes of ``ReportingError``.
///
/// The raw values are stable identities: they never change and a retired one is never reused.
public enum ReportingErrorCode: Int, ErrorCode, CaseIterable {
    public static let domain = "ReportingError"
    public static let shortName = "RP"

    /// The reporter dropped occurrences (caps, a full queue) or sinks failed; the report's context
    /// has the counts. See ``NonFatalReport/Kind/drops``.
    case reportsDropped = 1
    /// A report file could not be opened for appending.
    case cannotOpenFile = 2
    /// Appending a report to a file failed (the disk is full, the file was removed, …).
    case cannotWriteFile = 3
    /// The report file reached its maximum size; the report was dropped.
    case fileFull = 4
    /// A report file could not be read.
    case cannotReadFile = 5
}
