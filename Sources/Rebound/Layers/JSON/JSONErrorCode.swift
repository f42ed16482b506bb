/// The JSON layer's error: a body could not be turned into values, or values into a body.
///
/// This is the `JS` layer, the bottom of the chain when the server answered and the answer was
/// not what the client expected: `APIError.currentWorker - JSONError.keyNotFound`. Build it with
/// ``LayerError/decode(_:from:decoder:fileID:line:)``, which tells an empty body and a body that is not JSON
/// at all apart from JSON of the wrong shape, because they point at different culprits (a proxy's
/// HTML error page is not a schema change).
public typealias JSONError = LayerError<JSONErrorCode>

/// The codes of ``JSONError``.
///
/// The first four match the cases of Swift's `DecodingError` and the numbers the chain gives a
/// bare `DecodingError` (`DE1`–`DE4`). The raw values are stable identities: they never change and
/// a retired one is never reused.
public enum JSONErrorCode: Int, ErrorCode, CaseIterable {
    public static let domain = "JSONError"
    public static let shortName = "JS"

    /// A value has another type than the model expects (a string where a number belongs).
    case typeMismatch = 1
    /// A value the model requires is `null`.
    case valueNotFound = 2
    /// A key the model requires is missing.
    case keyNotFound = 3
    /// The JSON is well formed but a value in it is invalid for the model (a bad date, an unknown
    /// enum case).
    case dataCorrupted = 4
    /// The body is not JSON at all: often an HTML error page from a proxy or a load balancer.
    case notJSON = 5
    /// The body is empty (or only whitespace) where JSON was expected.
    case emptyBody = 6
    /// A value could not be encoded as JSON.
    case encodingFailed = 7
    /// The body reads as JSON as far as the parser goes, but nests arrays or objects deeper than it
    /// reads (512 levels), so it was read no further. No API answer nests that deep: look at what
    /// produced the body, not for an error page or a change of the model.
    case tooDeeplyNested = 8
}
