extension PresentationStrings {
    /// Rebound's English strings: every string the presentation shows, in one place.
    public static let english = PresentationStrings(
        language: "en",
        table: [
            "noConnection.title": "No connection",
            "noConnection.message": "No connection to the server. Please check your internet connection.",
            "timedOut.title": "No answer",
            "timedOut.message": "The server is taking too long to answer. Please try again.",
            "insecureConnection.title": "Connection not secure",
            "insecureConnection.message":
                "A secure connection to the server could not be made. Please check your network or try another one.",
            "serviceUnavailable.title": "Service unavailable",
            "serviceUnavailable.message":
                "The service is temporarily unavailable. Please try again in a few minutes.",
            "circuitOpen.title": "Service unavailable",
            "circuitOpen.message": "The service is unavailable. Please try again in {retryAfterSeconds} s.",
            "rateLimited.title": "Too many requests",
            "rateLimited.message": "Too many requests in a short time. Please wait a moment and try again.",
            "rateLimitWait.title": "Too many requests",
            "rateLimitWait.message": "Too many requests in a short time. Please try again in {retryAfterSeconds} s.",
            "sessionExpired.title": "Session expired",
            "sessionExpired.message": "Your session has expired. Please sign in again.",
            "verificationFailed.title": "Verification failed",
            "verificationFailed.message": "We could not verify that you are not a robot. Please try again.",
            "invalidInput.title": "Check your input",
            "invalidInput.message": "Some of what you entered is not valid. Please check it and try again.",
            "updateRequired.title": "Update required",
            "updateRequired.message": "This version of the app is no longer supported. Please update it.",
            "cancelled.title": "Cancelled",
            "cancelled.message": "The operation was cancelled.",
            "generic.title": "Something went wrong",
            "generic.message":
                "Something went wrong. Try again a little later. If the error repeats, send its code to support.",

            "action.retry": "Try again",
            "action.retryLater": "Try later",
            "action.checkConnection": "Check connection",
            "action.signInAgain": "Sign in",
            "action.correctInput": "Edit",
            "action.contactSupport": "Contact support",
            "action.updateApp": "Update",

            "label.errorCode": "Error code: {code}",
            "label.technicalDetails": "Technical details: {chain}",
            "label.build": "Build: {build}",
        ]
    )
}
