/// What a person is shown about a failure.
///
/// A recoverable failure says what happened and what to do. An unrecoverable one says that
/// something went wrong and gives the error code (the short chain) to quote to support, and, when
/// asked, the technical details: the full chain and the build.
public struct ErrorPresentation: Hashable, Sendable {
    /// Which message was chosen.
    public var messageKey: UserMessage.Key
    /// Whether the person can recover and is told how.
    public var isRecoverable: Bool
    /// A short title, for a dialog.
    public var title: String
    /// What happened and what to do.
    public var message: String
    /// What the person can do, most useful first.
    public var actions: [SuggestedAction]
    /// The failure's short chain, such as `US14-LO43-AP7-NE2`: the code to quote to support.
    public var errorCode: String
    /// The full chain and the build, when they were asked for.
    public var technicalDetails: String?

    public init(
        messageKey: UserMessage.Key,
        isRecoverable: Bool,
        title: String,
        message: String,
        actions: [SuggestedAction],
        errorCode: String,
        technicalDetails: String?
    ) {
        self.messageKey = messageKey
        self.isRecoverable = isRecoverable
        self.title = title
        self.message = message
        self.actions = actions
        self.errorCode = errorCode
        self.technicalDetails = technicalDetails
    }
}
