import Rebound

// The app's own layers, declared the way the talk recommends: each with explicit codes and a
// two-letter short name, each wrapping the layer below. Together with Rebound's built-in layers
// (RE, BE, HT, JS, NE) one failure reads as a chain such as `US14-IN2-AP3-RE1-HT503`.

/// The API layer: one code per endpoint.
enum TaskAPIErrorCode: Int, ErrorCode {
    static let domain = "TaskAPIError"
    static let shortName = "AP"

    case loginFailed = 1
    case refreshFailed = 2
    case listTasksFailed = 3
    case getTaskFailed = 4
    case submitAnswerFailed = 5
    case profileFailed = 6
    case verifyCaptchaFailed = 7
}

/// The interactor (business logic) layer: one code per use case.
enum InteractorErrorCode: Int, ErrorCode {
    static let domain = "InteractorError"
    static let shortName = "IN"

    case signIn = 1
    case loadTasks = 2
    case openTask = 3
    case submitAnswer = 4
    case loadProfile = 5
}

/// The user layer: what the person was doing, and what to tell them.
enum UserErrorCode: Int, PresentableErrorCode {
    static let domain = "UserError"
    static let shortName = "US"

    case generalServer = 4
    case signInFailed = 10
    case tasksUnavailable = 11
    case taskUnavailable = 12
    case answerNotSent = 13
    case profileUnavailable = 14

    /// `nil`: the standard rules read the chain below (no connection, service busy, invalid
    /// input…) and anything they don't recognise is shown as unrecoverable with its code.
    var userMessage: UserMessage? { nil }
}

typealias TaskAPIError = LayerError<TaskAPIErrorCode>
typealias InteractorError = LayerError<InteractorErrorCode>
typealias UserError = LayerError<UserErrorCode>
