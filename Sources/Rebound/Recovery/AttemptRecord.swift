/// What happened to one attempt of a request.
public struct AttemptRecord: Hashable, Sendable, Codable {
    /// The attempt's number, from 1.
    public var number: Int
    /// The response status, if a response arrived.
    public var status: Int?
    /// The failure's chain, or `nil` when the attempt succeeded.
    public var chain: ErrorChain?
    /// How long the pipeline waited before sending this attempt.
    public var delayBefore: Duration
    /// How long the attempt took, from sending to the classified outcome.
    public var duration: Duration
    /// The handler that decided to send again after this attempt, if one did.
    public var handler: String?

    init(
        number: Int,
        status: Int?,
        chain: ErrorChain?,
        delayBefore: Duration,
        duration: Duration,
        handler: String? = nil
    ) {
        self.number = number
        self.status = status
        self.chain = chain
        self.delayBefore = delayBefore
        self.duration = duration
        self.handler = handler
    }

    /// The failure's short chain, such as `HT503`, or `nil` when the attempt succeeded.
    public var error: String? { chain?.short }

    /// Whether the attempt succeeded.
    public var succeeded: Bool { chain == nil }
}

/// Every attempt of a call, oldest first: attached to a failed call's error
/// (``LayerError/attachment(_:)``) and returned with a successful one (``APIResponse/history``).
public struct AttemptHistory: ErrorAttachment, Hashable, Codable {
    /// The attempts, oldest first.
    public var attempts: [AttemptRecord]

    init(attempts: [AttemptRecord]) {
        self.attempts = attempts
    }

    /// One line per attempt: `#1 HT503 → BackendTemporaryErrorHandler, #2 (after 0.4 seconds) 200`.
    public var summary: String {
        attempts.map { record in
            var text = "#\(record.number)"
            if record.delayBefore > .zero { text += " (after \(record.delayBefore))" }
            text += " " + (record.error ?? record.status.map(String.init) ?? "ok")
            if let handler = record.handler { text += " → \(handler)" }
            return text
        }.joined(separator: ", ")
    }
}
