#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// One report of a non-fatal error, as a sink receives it and as one line of a report file holds it.
///
/// A report is grouped by ``chain``, the short chain: the same failure has the same short chain in
/// every build, run and machine. Everything in a report is safe to send anywhere: the chain's links
/// and ``context`` have their sensitive values redacted before the report exists.
///
/// ## Kinds
///
/// | kind | made when | `occurrences` | `context`, `file`, `line`, `function` |
/// |---|---|---|---|
/// | ``Kind/occurrence`` | a chain occurs for the first time in the session | 1 | of that occurrence |
/// | ``Kind/repeats`` | at a flush, for a chain that occurred again since its last report | repeats since then | empty context; the first occurrence's place |
/// | ``Kind/drops`` | at a flush, when the reporter dropped occurrences or sinks failed since the last one | occurrences dropped since then | the cumulative ``ReportStatistics`` |
///
/// Summing ``occurrences`` over a session's ``Kind/occurrence`` and ``Kind/repeats`` reports gives
/// how often each chain occurred in it (up to the caps, whose drops the ``Kind/drops`` reports count).
///
/// ## JSON
///
/// One object, keys sorted when a ``JSONLinesReportSink`` writes it; ``time`` is always an ISO 8601
/// string in UTC with milliseconds, whatever the encoder's date strategy:
///
/// ```json
/// {"build":{"revision":"3f9c2ab","version":"2.4.1"},"chain":"US14-LO43-AP7-NE2",
///  "context":[{"isSensitive":false,"key":"screen","value":"login"},
///             {"isSensitive":true,"key":"email","value":"<redacted>"}],
///  "error":{"isTruncated":false,"links":[{"code":14,"codeName":"connectionIssue", …}, …]},
///  "file":"App/LoginModel.swift","fullChain":"UserError.connectionIssue - … - NetworkError.timeout",
///  "function":"login()","host":"api-7.eu-west","kind":"occurrence","line":42,"occurrences":1,
///  "sequence":1,"session":"6F1C…","time":"2025-03-01T09:30:12.345Z"}
/// ```
///
/// ``host`` is absent from reports written before it existed, and from those of a reporter
/// configured without one; such reports still decode.
public struct NonFatalReport: Hashable, Sendable, Codable {
    /// What a report stands for.
    public enum Kind: String, Hashable, Sendable, Codable {
        /// The first occurrence of its chain in the session, with its own context and place.
        case occurrence
        /// Further occurrences of a chain already reported in the session, counted since its last report.
        case repeats
        /// The reporter's own drop counts, under chain `RP1` (``ReportingErrorCode/reportsDropped``).
        case drops
    }

    /// What this report stands for.
    public var kind: Kind
    /// The short chain, such as `US14-LO43-AP7-NE2`: the grouping key.
    public var chain: String
    /// The full chain, such as `UserError.connectionIssue - … - NetworkError.timeout`.
    public var fullChain: String
    /// The whole chain: every link's code, reason, context (redacted), file and line.
    public var error: ErrorChain
    /// The debug context given where the error was recorded, sensitive values redacted.
    public var context: [ErrorChain.Link.ContextEntry]
    /// The file (`#fileID`) of the call that recorded the error.
    public var file: String
    /// The line of the call that recorded the error.
    public var line: Int
    /// The function of the call that recorded the error.
    public var function: String
    /// When: the occurrence's time, or for a summary the time of the last occurrence it counts.
    public var time: Date
    /// The build that recorded it.
    public var build: BuildIdentity
    /// The session that recorded it.
    public var session: UUID
    /// How many occurrences this report stands for: at least 1, or for a ``Kind/drops`` report
    /// at least 0 (it may only count sink failures). Decoding refuses a report with fewer.
    public var occurrences: Int
    /// The report's number within its session, from 1, in the order the reporter made them.
    public var sequence: Int
    /// The machine that recorded it (``NonFatalReporter/Configuration/host``), or `nil` when the
    /// reporter had none or the report predates the field.
    public var host: String?

    init(
        kind: Kind,
        error: ErrorChain,
        context: [ErrorChain.Link.ContextEntry] = [],
        file: String,
        line: Int,
        function: String,
        time: Date,
        build: BuildIdentity,
        session: UUID,
        occurrences: Int = 1,
        sequence: Int = 1,
        host: String? = nil
    ) {
        self.kind = kind
        self.chain = error.short
        self.fullChain = error.full
        self.error = error
        self.context = context
        self.file = file
        self.line = line
        self.function = function
        self.time = time
        self.build = build
        self.session = session
        self.occurrences = occurrences
        self.sequence = sequence
        self.host = host
    }

    /// `file:line`.
    public var location: String { "\(file):\(line)" }

    private enum CodingKeys: String, CodingKey {
        case kind, chain, fullChain, error, context, file, line, function, time, build, session, occurrences,
            sequence, host
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        kind = try container.decode(Kind.self, forKey: .kind)
        chain = try container.decode(String.self, forKey: .chain)
        fullChain = try container.decode(String.self, forKey: .fullChain)
        error = try container.decode(ErrorChain.self, forKey: .error)
        context = try container.decodeIfPresent([ErrorChain.Link.ContextEntry].self, forKey: .context) ?? []
        file = try container.decode(String.self, forKey: .file)
        line = try container.decode(Int.self, forKey: .line)
        function = try container.decodeIfPresent(String.self, forKey: .function) ?? ""
        let text = try container.decode(String.self, forKey: .time)
        guard let time = Self.parseTime(text) else {
            throw DecodingError.dataCorruptedError(
                forKey: .time, in: container, debugDescription: "Not an ISO 8601 date: \(text)")
        }
        self.time = time
        build = try container.decode(BuildIdentity.self, forKey: .build)
        session = try container.decode(UUID.self, forKey: .session)
        occurrences = try container.decode(Int.self, forKey: .occurrences)
        // No reporter writes fewer; from a file, fewer is damage, and would subtract from the sums.
        let fewest = kind == .drops ? 0 : 1
        guard occurrences >= fewest else {
            throw DecodingError.dataCorruptedError(
                forKey: .occurrences, in: container,
                debugDescription:
                    "A \(kind.rawValue) report stands for at least \(fewest) occurrences, not \(occurrences)."
            )
        }
        sequence = try container.decodeIfPresent(Int.self, forKey: .sequence) ?? 0
        host = try container.decodeIfPresent(String.self, forKey: .host)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(kind, forKey: .kind)
        try container.encode(chain, forKey: .chain)
        try container.encode(fullChain, forKey: .fullChain)
        try container.encode(error, forKey: .error)
        try container.encode(context, forKey: .context)
        try container.encode(file, forKey: .file)
        try container.encode(line, forKey: .line)
        try container.encode(function, forKey: .function)
        try container.encode(time.formatted(Self.timeStyle), forKey: .time)
        try container.encode(build, forKey: .build)
        try container.encode(session, forKey: .session)
        try container.encode(occurrences, forKey: .occurrences)
        try container.encode(sequence, forKey: .sequence)
        try container.encodeIfPresent(host, forKey: .host)
    }

    /// Milliseconds keep the order of reports made in the same second; UTC keeps files from
    /// machines in different time zones comparable as text.
    private static let timeStyle = Date.ISO8601FormatStyle(includingFractionalSeconds: true)

    private static func parseTime(_ text: String) -> Date? {
        if let time = try? timeStyle.parse(text) { return time }
        return try? Date.ISO8601FormatStyle().parse(text)
    }
}

extension NonFatalReport {
    /// One line of JSON for this report, keys sorted, without a trailing newline.
    ///
    /// JSON escapes newlines inside strings, so the result never contains one: a line of a report
    /// file is always exactly one report.
    func jsonLine() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(self)
    }
}
