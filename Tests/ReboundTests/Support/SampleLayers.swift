import Rebound

// The layers of the app in the talk, declared as an app declares its own.

enum UserErrorCode: Int, PresentableErrorCode, CaseIterable {
    static let domain = "UserError"
    static let shortName = "US"

    case generalServer = 4
    case connectionIssue = 14
    case accountBlocked = 15

    var userMessage: UserMessage? {
        switch self {
        case .connectionIssue: .noConnection
        case .accountBlocked: UserMessage("accountBlocked", actions: [.contactSupport])
        case .generalServer: nil
        }
    }
}

enum LogicErrorCode: Int, ErrorCode, CaseIterable {
    static let domain = "LogicError"
    static let shortName = "LO"

    case loginFailed = 43
    case loadTasksFailed = 44
}

enum APIErrorCode: Int, ErrorCode, CaseIterable {
    static let domain = "APIError"
    static let shortName = "AP"

    case getTokenFailed = 7
    case listTasksFailed = 8
    case currentWorker = 103
}

typealias UserError = LayerError<UserErrorCode>
typealias LogicError = LayerError<LogicErrorCode>
typealias APIError = LayerError<APIErrorCode>

/// A foreign error type, as a library outside Rebound might throw.
enum ThirdPartyError: Error {
    case broke
    case failed(code: Int)
}

/// The talk's example: a login that timed out.
func talkExample(token: String = "s3cr3t-token") -> UserError {
    let network = NetworkError(
        .timeout, reason: "The request took longer than 60 seconds.", context: ["curlCode": "28"])
    var apiContext: ErrorContext = ["endpoint": "/v1/token"]
    apiContext["refreshToken"] = .sensitive(token)
    let api = APIError(.getTokenFailed, cause: network, reason: "token request failed", context: apiContext)
    let logic = LogicError(.loginFailed, cause: api)
    return UserError(.connectionIssue, cause: logic)
}
