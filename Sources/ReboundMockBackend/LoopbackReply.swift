/// What the loopback server does with a request: a response, or a scripted misbehaviour.
///
/// Besides ordinary responses, a reply can break the exchange at a chosen point, so a test can watch
/// its HTTP client meet each failure a real server or network produces:
///
/// | Reply                   | On the wire                                   | The client sees            |
/// |-------------------------|-----------------------------------------------|----------------------------|
/// | ``respond(status:headers:body:)`` | head and body                       | a response                 |
/// | ``stream(status:headers:chunks:pause:)`` | head, then chunks with pauses | a slow response            |
/// | ``closeMidBody(status:headers:declaredLength:partialBody:)`` | part of the body, FIN | truncated body (curl 18) |
/// | ``stallMidBody(status:headers:declaredLength:partialBody:)`` | part of the body, silence | a stalled transfer |
/// | ``stall``               | nothing, the connection held open             | a timeout (curl 28)        |
/// | ``closeWithoutResponse`` | FIN without a byte                           | an empty reply (curl 52)   |
/// | ``delayed(_:_:)``       | silence for a while, then the wrapped reply   | a slow server              |
/// | ``raw(chunks:pause:then:)`` | exactly the bytes given, then the ``Ending`` | whatever the bytes say     |
///
/// Header fields are sent in the order given, with the spelling given. After a complete response the
/// connection stays open for the next request, unless the request asked to close it or the reply's
/// headers contain `Connection: close`. A request that is `HEAD`, or a status that has no body
/// (1xx, 204, 304), gets the head without body bytes. A status outside 100–999, or a header field
/// that no response may carry (an empty name, a name that is not a token, a value with a control
/// character other than a tab, such as CR or LF), is a mistake in the test, which no client could read
/// and which could inject headers: the server answers `500 Internal Server Error` with a plain-text
/// reason instead.
public enum LoopbackReply: Sendable {
    /// A complete response.
    ///
    /// The server adds `Content-Length` from the body unless `headers` already have `Content-Length` or
    /// `Transfer-Encoding` (which lets a test send a deliberately wrong length), or the status has no body.
    case respond(status: Int, headers: [(String, String)] = [], body: [UInt8] = [])

    /// The head, then the body in chunks, pausing `pause` before each chunk after the first.
    ///
    /// The body is sent with `Transfer-Encoding: chunked` unless `headers` give `Content-Length` or
    /// `Transfer-Encoding`. Each chunk is flushed on its own. To an HTTP/1.0 client, which cannot read
    /// chunked framing, the body is sent unframed and the connection closed after it.
    case stream(status: Int, headers: [(String, String)] = [], chunks: [[UInt8]], pause: Duration)

    /// The head with `Content-Length: declaredLength`, then `partialBody` (shorter), then the connection closes.
    ///
    /// Any `Content-Length` or `Transfer-Encoding` in `headers` is replaced by the declared length.
    case closeMidBody(status: Int, headers: [(String, String)] = [], declaredLength: Int, partialBody: [UInt8])

    /// The head with `Content-Length: declaredLength` and `partialBody` (shorter), then nothing more.
    ///
    /// The connection stays open until the client goes away or the server shuts down; later requests
    /// on it are never answered. The server cannot tell a client that left from one that only closed
    /// its side (a half-close), so it notices one
    /// ``LoopbackServer/Limits/idleTimeout`` after the client's side ends.
    case stallMidBody(status: Int, headers: [(String, String)] = [], declaredLength: Int, partialBody: [UInt8])

    /// No answer at all; the connection stays open until the client goes away or the server shuts down
    /// (see ``stallMidBody(status:headers:declaredLength:partialBody:)`` for when the server notices).
    ///
    /// Later requests on the same connection are never answered either.
    case stall

    /// The connection closes without a byte of response.
    case closeWithoutResponse

    /// Waits for the duration, then does the wrapped reply.
    ///
    /// The wait is real time: the server exists to exercise a client's real timeouts.
    indirect case delayed(Duration, LoopbackReply)

    /// Exactly these bytes, unchecked, in chunks `pause` apart, and then the connection ends as
    /// `ending` says.
    ///
    /// The server's HTTP encoder is bypassed: no status line, header or framing is added, checked
    /// or fixed, so a test can send what no HTTP server would (a malformed status line, conflicting
    /// `Content-Length` fields, a head cut short, interim responses without end). Each chunk is
    /// flushed on its own. With ``Ending/keepOpen`` the server takes the bytes as a whole response
    /// and answers the connection's next request after them.
    case raw(chunks: [[UInt8]], pause: Duration, then: Ending)

    /// What becomes of a connection after a ``raw(chunks:pause:then:)`` reply's last byte.
    public enum Ending: Sendable, Hashable {
        /// The connection stays open and answers its next request, unless the request asked to close it.
        case keepOpen
        /// The connection closes (a FIN): a client reading a body or a head to its end sees it cut short.
        case close
        /// The connection is reset (an RST, what a crashed peer or a middlebox sends): unsent data is
        /// discarded and the client's next read or write fails with `ECONNRESET`.
        case reset
        /// Nothing more is sent, and the connection stays open; its later requests are never answered
        /// (see ``LoopbackReply/stall`` for when the server notices a client that left).
        case stall
    }
}

extension LoopbackReply {
    /// A complete response whose body is `text` in UTF-8, with `Content-Type: text/plain; charset=utf-8`.
    public static func text(_ text: String, status: Int = 200) -> LoopbackReply {
        .respond(status: status, headers: [("Content-Type", "text/plain; charset=utf-8")], body: Array(text.utf8))
    }

    /// A complete response whose body is `json`, sent as is, with `Content-Type: application/json`.
    public static func json(_ json: String, status: Int = 200) -> LoopbackReply {
        .respond(status: status, headers: [("Content-Type", "application/json")], body: Array(json.utf8))
    }

    /// `bytes` exactly as given, at once, then `ending` (by default the connection closes).
    public static func raw(_ bytes: [UInt8], then ending: Ending = .close) -> LoopbackReply {
        .raw(chunks: [bytes], pause: .zero, then: ending)
    }

    /// `text` in UTF-8 exactly as given, at once, then `ending` (by default the connection closes).
    ///
    /// ```swift
    /// .raw("HTTP/1.1 2x0 OK\r\nContent-Length: 2\r\n\r\nok")       // a malformed status line
    /// .raw("HTTP/1.1 200 OK\r\nContent-Le", then: .reset)           // a reset in the middle of the head
    /// ```
    public static func raw(_ text: String, then ending: Ending = .close) -> LoopbackReply {
        .raw(Array(text.utf8), then: ending)
    }
}
