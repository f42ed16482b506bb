import Rebound

/// The tool's API layer: the code of the error `fetch` reports when a request fails.
///
/// It plays the part of an app's own API error, so a failure reads as an app's would:
/// `AP1-RE1-HT503` is `APIError.requestFailed - RecoveryError.retriesExhausted -
/// HTTPError.no503ServiceUnavailable`. The raw value is stable.
enum FetchErrorCode: Int, ErrorCode {
    static let domain = "APIError"
    static let shortName = "AP"

    /// The request did not succeed: the server's last answer was not 2xx, or none arrived.
    case requestFailed = 1
}

/// The error `fetch` reports when a request fails.
typealias FetchError = LayerError<FetchErrorCode>
