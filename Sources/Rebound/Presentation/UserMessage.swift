/// What to tell a person about a failure: which message, which actions, and whether they can
/// recover from it.
///
/// A message names its strings by ``Key``; ``PresentationStrings`` holds the words (`<key>.title`
/// and `<key>.message`), so that all text lives in one place and can be translated.
public struct UserMessage: Hashable, Sendable {
    /// The name of a message in ``PresentationStrings``.
    public struct Key: Hashable, Sendable, RawRepresentable, ExpressibleByStringLiteral, CustomStringConvertible {
        public var rawValue: String

        public init(rawValue: String) {
            self.rawValue = rawValue
        }

        public init(stringLiteral value: String) {
            self.init(rawValue: value)
        }

        public var description: String { rawValue }
    }

    /// Which message.
    public var key: Key
    /// What the person can do, most useful first.
    public var actions: [SuggestedAction.Kind]
    /// Whether the person can recover (and is told how) or only told that something went wrong.
    public var isRecoverable: Bool

    public init(_ key: Key, actions: [SuggestedAction.Kind], isRecoverable: Bool = true) {
        self.key = key
        self.actions = actions
        self.isRecoverable = isRecoverable
    }

    /// The server cannot be reached.
    public static let noConnection = UserMessage("noConnection", actions: [.checkConnection, .retry])
    /// The server did not answer in time.
    public static let timedOut = UserMessage("timedOut", actions: [.retry])
    /// A secure connection could not be made.
    public static let insecureConnection = UserMessage("insecureConnection", actions: [.checkConnection])
    /// The service is down for a while.
    public static let serviceUnavailable = UserMessage("serviceUnavailable", actions: [.retryLater])
    /// The client stopped sending to a failing service for a while (an open circuit breaker);
    /// the message says when to try again (`{retryAfterSeconds}`).
    public static let circuitOpen = UserMessage("circuitOpen", actions: [.retryLater])
    /// Too many requests.
    public static let rateLimited = UserMessage("rateLimited", actions: [.retryLater])
    /// The client is holding its requests back for a while, as the service asked (a rate
    /// limiter's wait past the deadline); the message says when to try again
    /// (`{retryAfterSeconds}`).
    public static let rateLimitWait = UserMessage("rateLimitWait", actions: [.retryLater])
    /// The session ended; signing in again helps.
    public static let sessionExpired = UserMessage("sessionExpired", actions: [.signInAgain])
    /// The human-verification challenge was not passed.
    public static let verificationFailed = UserMessage("verificationFailed", actions: [.retry])
    /// What was entered is not valid.
    public static let invalidInput = UserMessage("invalidInput", actions: [.correctInput])
    /// The app is too old for the server.
    public static let updateRequired = UserMessage("updateRequired", actions: [.updateApp])
    /// The person cancelled; nothing needs doing.
    public static let cancelled = UserMessage("cancelled", actions: [])
    /// Anything else: a generic message, the error code, and support.
    public static let generic = UserMessage("generic", actions: [.retryLater, .contactSupport], isRecoverable: false)
}

/// An error code that knows what people should be told about it: the app's user layer.
///
/// ```swift
/// enum UserErrorCode: Int, PresentableErrorCode {
///     static let domain = "UserError"
///     static let shortName = "US"
///     case connectionIssue = 14
///     case accountBlocked = 15
///
///     var userMessage: UserMessage? {
///         switch self {
///         case .connectionIssue: .noConnection
///         case .accountBlocked: UserMessage("accountBlocked", actions: [.contactSupport])
///         }
///     }
/// }
/// ```
///
/// The outermost link with a message wins; `nil` leaves the choice to the presenter's rules.
public protocol PresentableErrorCode: ErrorCode {
    /// The message for this code, or `nil` to let the presenter's rules decide.
    var userMessage: UserMessage? { get }
}

/// An error that may carry a message for people; ``LayerError`` conforms when its code is a
/// ``PresentableErrorCode``.
public protocol UserMessageProviding {
    /// The message for this error, if it has one.
    var userMessage: UserMessage? { get }
}

extension LayerError: UserMessageProviding where Code: PresentableErrorCode {
    public var userMessage: UserMessage? { code.userMessage }
}
