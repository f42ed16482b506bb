public import HTTPTypes
#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// Something that sends one HTTP request and returns its response: the bottom of Rebound's stack.
///
/// A transport moves bytes and nothing more: it does not judge the status code, retry or decode.
/// Every failure it reports is a ``NetworkError``; a response with any status, 500 included, is a
/// success at this layer. `ReboundCurl`'s `CurlTransport` is the production implementation; other
/// transports (a scripted one in tests, one over another HTTP stack) plug in here.
///
/// Implementations must be safe to call from many tasks at once, and must end a request promptly,
/// with ``NetworkErrorCode/cancelled``, when its task is cancelled.
public protocol HTTPTransport: Sendable {
    /// Sends a request and waits for the whole response.
    ///
    /// - Parameters:
    ///   - request: The method, URL (scheme, authority and path) and header fields.
    ///   - body: The request body, if any.
    ///   - options: Time limits, the body size limit and the redirect policy for this request.
    /// - Returns: The response head and its whole body.
    /// - Throws: A ``NetworkError`` when no complete response could be obtained.
    func send(
        _ request: HTTPRequest,
        body: Data?,
        options: TransportOptions
    ) async throws(NetworkError) -> TransportResponse

    /// The options of a request sent without options of its own; ``TransportOptions``' defaults
    /// unless the transport is configured otherwise.
    var defaultOptions: TransportOptions { get }
}

extension HTTPTransport {
    public var defaultOptions: TransportOptions { TransportOptions() }

    /// Sends a request with the transport's ``defaultOptions``.
    public func send(_ request: HTTPRequest, body: Data? = nil) async throws(NetworkError) -> TransportResponse {
        try await send(request, body: body, options: defaultOptions)
    }
}
