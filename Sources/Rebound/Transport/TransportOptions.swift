/// Per-request limits and policies of a transport.
///
/// Every default is chosen for a client of a JSON API on the public internet:
///
/// | option | default | why |
/// |---|---|---|
/// | ``connectTimeout`` | 10 s | A TCP and TLS handshake takes well under a second even across continents; 10 s survives a lossy mobile link's SYN retransmissions (sent after 1 s and 3 s) yet fails early enough to leave time for a retry. |
/// | ``timeout`` | 60 s | Proxies and load balancers commonly drop a request idle for 60 s (nginx's `proxy_read_timeout`, AWS ALB's idle timeout), so waiting longer rarely gets an answer. |
/// | ``stallTimeout`` | 30 s | A peer that sends nothing for half the total budget is almost surely gone; this catches it on long downloads too, where ``timeout`` is raised. |
/// | ``maxResponseBodySize`` | 32 MiB | Far above any JSON API payload, far below what would hurt a process when a runaway or hostile server streams without end. |
/// | ``redirects`` | follow up to 5 | Browsers allow about 20; APIs redirect once or twice, and a longer chain is usually a loop. |
/// | ``httpVersion`` | automatic | HTTP/2 when the server offers it over TLS, HTTP/1.1 otherwise. |
public struct TransportOptions: Hashable, Sendable {
    /// How long establishing a connection (TCP and TLS) may take.
    public var connectTimeout: Duration
    /// How long the whole request may take, from start to the last byte of the response.
    public var timeout: Duration
    /// How long the transfer may go without sending or receiving a byte.
    public var stallTimeout: Duration
    /// The largest response body accepted, in bytes, after content decoding. A larger response is
    /// aborted with ``NetworkErrorCode/responseTooLarge`` and never buffered past this size.
    public var maxResponseBodySize: Int
    /// Whether and how far to follow redirects.
    public var redirects: RedirectPolicy
    /// Which HTTP version to speak.
    public var httpVersion: HTTPVersionPreference

    public init(
        connectTimeout: Duration = .seconds(10),
        timeout: Duration = .seconds(60),
        stallTimeout: Duration = .seconds(30),
        maxResponseBodySize: Int = 32 * 1024 * 1024,
        redirects: RedirectPolicy = .follow(max: 5),
        httpVersion: HTTPVersionPreference = .automatic
    ) {
        self.connectTimeout = connectTimeout
        self.timeout = timeout
        self.stallTimeout = stallTimeout
        self.maxResponseBodySize = maxResponseBodySize
        self.redirects = redirects
        self.httpVersion = httpVersion
    }
}

/// Whether a transport follows redirects.
///
/// Redirects from `https` to `http` are never followed, whatever the policy: they would send the
/// request, and any credentials in it, in clear text.
public enum RedirectPolicy: Hashable, Sendable {
    /// Return the redirect response itself.
    case doNotFollow
    /// Follow up to `max` redirects; one more fails with ``NetworkErrorCode/tooManyRedirects``.
    case follow(max: Int)
}

/// Which HTTP version a transport speaks.
public enum HTTPVersionPreference: Hashable, Sendable {
    /// HTTP/2 over TLS when the server offers it (ALPN), HTTP/1.1 otherwise.
    case automatic
    /// HTTP/1.1 only.
    case http1
    /// HTTP/2 without negotiation, also over plain `http` (h2c "prior knowledge"), for servers known to speak it.
    case http2PriorKnowledge
}
