/// The network layer's error: what went wrong while moving bytes, before any HTTP status was judged.
///
/// Every transport reports its failures as a `NetworkError`, which is the `NE` layer of Rebound's
/// error chains. The libcurl transport keeps curl's own result code and error text in the
/// ``LayerError/context`` (`curlCode`, `curlError`), so that nothing curl said is lost.
public typealias NetworkError = LayerError<NetworkErrorCode>

/// The codes of ``NetworkError``.
///
/// The raw values are stable identities: they never change and a retired one is never reused.
public enum NetworkErrorCode: Int, ErrorCode, CaseIterable {
    public static let domain = "NetworkError"
    public static let shortName = "NE"

    /// A failure that none of the other codes describes; curl's code is in the context.
    case other = 1
    /// The request did not finish within its total time limit.
    case timeout = 2
    /// No connection could be established within the connect time limit.
    case connectTimeout = 3
    /// The connection was open but no bytes moved for the stall limit.
    case stalled = 4
    /// The host name could not be resolved.
    case cannotResolveHost = 5
    /// The host refused the connection or could not be reached.
    case cannotConnect = 6
    /// The connection was reset or closed before a response arrived, or receiving failed.
    case connectionReset = 7
    /// The connection closed in the middle of the response body.
    case incompleteResponse = 8
    /// Sending the request failed.
    case sendFailed = 9
    /// The TLS handshake or certificate verification failed.
    case tlsFailure = 10
    /// The response redirected more times than allowed.
    case tooManyRedirects = 11
    /// A redirect would have gone from `https` to `http`, or to a protocol other than HTTP, and was refused.
    case insecureRedirect = 12
    /// The response body was larger than the allowed maximum, or its head larger than the
    /// transport accepts; it was aborted, not buffered.
    case responseTooLarge = 13
    /// The request was cancelled (its task was cancelled, or the transport shut down).
    case cancelled = 14
    /// The request's URL is malformed or uses a scheme other than `http` or `https`.
    case invalidURL = 15
    /// The server's response broke the protocol: malformed HTTP, an HTTP/2 error, bad content encoding.
    case protocolError = 16
    /// A proxy failed or refused the request.
    case proxyFailure = 17
    /// The transport could not run the request: out of memory, initialisation failed, shut down.
    case transportUnavailable = 18
    /// The request itself could not be expressed (for instance a header value curl cannot send).
    case invalidRequest = 19
    /// The request would have waited for a connection, but the transport's queue of waiting
    /// requests was full; it was never sent.
    case queueFull = 20
}
